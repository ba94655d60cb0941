"""Times every MCP tool call for /metrics (`MEMSPACE_METRICS=true`), outside the tools."""

from __future__ import annotations

import time
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from memspace.startup.metrics import Metrics


def time_tool_calls(server: MCPServer, metrics: Metrics) -> None:
    """Wrap the server's call_tool (the one every tools/call goes through, after its errors
    became results): latency by tool and by status, "ok" or the error's code."""
    inner = server.call_tool
    known: set[str] = set()  # the tools' names, listed (publicly, so async) on the first call

    async def timed(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if not known:
            known.update(tool.name for tool in await server.list_tools())
        tool = name if name in known else "unknown"  # a label per made-up name would grow forever
        started = time.perf_counter()
        status = "error"
        try:
            result = await inner(name, arguments, context)
            status = _status(result)
            return result
        finally:
            metrics.tool_call(tool, status, time.perf_counter() - started)

    setattr(server, "call_tool", timed)  # noqa: B010 -- an instance attribute overrides the method


def _status(result: object) -> str:
    if not isinstance(result, CallToolResult) or not result.is_error:
        return "ok"
    code = (result.structured_content or {}).get("code")
    return code if isinstance(code, str) else "error"
