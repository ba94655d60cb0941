"""The HTTP surface: FastAPI app, REST routes, the /mcp mount and key authentication."""
