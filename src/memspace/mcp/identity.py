"""How a tool learns who is calling: the HTTP auth middleware leaves the Principal in the
request's ASGI state; tools read it from there. A process that serves one caller over stdio
(`memspace stdio`, mcp/stdio.py) has no request: it names its caller in `process_caller`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from memspace.domain.errors import MemspaceError, RateLimited
from memspace.mcp.errors import code_of, coded
from memspace.services.access import Principal
from memspace.surfaces.identity import (
    PRINCIPAL_STATE_KEY,
    RATE_LIMITED_STATE_KEY,
    current_principal,
)

T = TypeVar("T")

# The caller of a stdio process: asked on every request (a key is checked again each time, so
# revoking it takes effect on the next call). None on the HTTP server.
process_caller: ContextVar[Callable[[], Principal] | None] = ContextVar(
    "memspace_process_caller", default=None
)


def principal_of(ctx: Context | None) -> Principal:
    principal: Any = current_principal.get()
    if ctx is not None:
        request: Any = ctx.request_context.request
        scope = getattr(request, "scope", None) or {}
        principal = scope.get("state", {}).get(PRINCIPAL_STATE_KEY, principal)
        wait = scope.get("state", {}).get(RATE_LIMITED_STATE_KEY)
        if wait:  # over MEMSPACE_RATE_LIMIT (api/rate_limit.py): the closed-set code, no work
            raise coded(RateLimited(int(wait)))
    caller = process_caller.get()
    if not isinstance(principal, Principal) and caller is not None:
        try:
            principal = caller()
        except MemspaceError as exc:
            raise ToolError(f"{code_of(exc)}: {exc.message}") from exc
    if not isinstance(principal, Principal):
        raise ToolError(
            "unauthenticated: connect with an `Authorization: Bearer msk_...` header "
            "(create a key with `memspace key create`)"
        )
    return principal


@contextmanager
def as_tool_error() -> Iterator[None]:
    """Domain errors reach the model as their message (a bare exception would not)."""
    try:
        yield
    except MemspaceError as exc:
        raise coded(exc) from exc


def call(fn: Callable[[], T]) -> T:
    with as_tool_error():
        return fn()
