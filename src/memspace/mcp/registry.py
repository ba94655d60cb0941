"""Tools as module-level functions, registered by name: a module lists its tools in a
`ToolList` (`@TOOLS.tool(name=…, description=…)` over a plain function), and `build_mcp_server`
adds each list to the server in order. A tool finds the services through its `Context`
(`app_of(ctx)`): the server it was called on carries the container it was built for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from memspace.domain.errors import MemspaceError
from memspace.mcp.errors import CodedErrorsServer
from memspace.mcp.toolsets import chosen_toolsets, draws_views, listing
from memspace.startup.container import Container

F = TypeVar("F", bound=Callable[..., Any])
# `server.tool` or `apps.tool`: options in, a decorator out.
Decorates = Callable[..., Callable[[Callable[..., Any]], Any]]


class MemspaceServer(CodedErrorsServer):
    """The MCP server of one container (its tools read the services from it)."""

    def __init__(self, container: Container, **options: Any) -> None:
        super().__init__(middleware=[ShownTools(container)], **options)
        self.container = container


class ShownTools:
    """Server middleware on `tools/list` (the SDK's public seam around every request): the
    default list and the toolsets this client asked for; the views only to a client that can
    draw them (mcp/toolsets.py). Unlisted tools still answer calls by name."""

    def __init__(self, container: Container) -> None:
        self._choice = container.settings.toolsets

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/list":
            return await call_next(ctx)
        try:
            toolsets = chosen_toolsets(ctx, self._choice)
        except MemspaceError as exc:
            raise MCPError(code=INVALID_PARAMS, message=exc.message) from exc
        answer = await call_next(ctx)
        if not isinstance(answer, dict):  # the SDK hands middleware the wire form
            raise TypeError(f"tools/list answered {type(answer).__name__}, not its wire form")
        return {**answer, "tools": listing(answer.get("tools", []), toolsets, draws_views(ctx))}


def app_of(ctx: Context) -> Container:
    """The container of the server this call came to."""
    server = ctx.mcp_server
    if not isinstance(server, MemspaceServer):
        raise RuntimeError("memspace tools are served by a MemspaceServer (mcp/server.py)")
    return server.container


class ToolList:
    """A module's tools, in the order they are listed to clients."""

    def __init__(self) -> None:
        self._tools: list[tuple[Callable[..., Any], dict[str, Any]]] = []

    def tool(self, **options: Any) -> Callable[[F], F]:
        """Record `fn` with its options (name, title, description, annotations, …); the
        function itself is left as it is, importable and callable on its own."""

        def record(fn: F) -> F:
            self._tools.append((fn, options))
            return fn

        return record

    @property
    def functions(self) -> list[Callable[..., Any]]:
        return [fn for fn, _ in self._tools]

    @property
    def names(self) -> list[str]:
        return [str(options["name"]) for _, options in self._tools]

    def register(self, decorate: Decorates) -> None:
        """Add every tool through `decorate` (`server.tool`, or `apps.tool` for launchers)."""
        for fn, options in self._tools:
            decorate(**options)(fn)
