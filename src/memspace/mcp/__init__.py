"""The MCP surface: tools, resources and prompt as thin adapters over the services."""
