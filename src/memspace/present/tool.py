"""An MCP tool result: the readable text, with the same data as structuredContent."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], structured_content=data)
