"""How answers look on every surface: `json` gives the wire shapes (docs/contract.md, camelCase) of the
services' answers, built from the record shapes in `records`; `text` the readable lines; `tool`
pairs them into an MCP tool result. Services return typed results; MCP tools, REST routes and
the CLI render them here, so one change of shape is one change here."""
