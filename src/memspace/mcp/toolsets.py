"""Which tools a client is shown (docs/contract.md, "Toolsets").

A model reads every listed definition on every turn, and clients cap how many tools they send
across all their servers, so `tools/list` answers a short default list: the tools of an agent's
working loop (start with context, search, save, correct, read, catch up, hand off, settle a
conflict, check a note against its code). The rest come in named toolsets a client, key or
operator asks for. Listing is only what is shown: every tool stays callable by its name with the
same rights, so a client configured against a tool that is no longer listed keeps working.

The `*_ui` tools open or serve MCP Apps views: listed only to a client that negotiated the
extension, since no other client can draw them; the views' own helpers also carry
`_meta.ui.visibility: ["app"]`, so a host keeps them from the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qs

from mcp.server.apps import client_supports_apps
from mcp.server.context import ServerRequestContext

from memspace.domain.errors import MemspaceError
from memspace.domain.toolsets import TOOLSET_NAMES, parse_toolsets
from memspace.mcp.identity import process_caller
from memspace.surfaces.identity import APPS_STATE_KEY, PRINCIPAL_STATE_KEY

# The default list, in the order clients show it.
DEFAULT = ("get_context", "search_memory", "add_memory", "correct_memory", "getMemory",
           "get_changes_since", "save_handoff", "list_conflicts", "resolve_conflict",
           "verify_memory", "listSpaces")
TOOLSETS: dict[str, tuple[str, ...]] = {
    "history": ("listMemories", "list_memory_revisions", "latest_handoff", "list_handoffs"),
    "review": ("mark_memory", "patch_memory", "rename_category"),
    "code": ("get_chunk",),
    "documents": ("listDocuments", "getDocument", "retryDocument"),
    "spaces": ("whoAmI", "setActiveSpace"),
}
# Names whose work another tool does now: still answered (as that tool answers), never listed.
FOLDED = {"getMemories": "getMemory"}
VIEW_SUFFIX = "_ui"
# Schema keywords whose keys are names chosen by the tool, not keywords.
NAMED = ("properties", "$defs", "definitions")

assert tuple(TOOLSETS) == tuple(TOOLSET_NAMES), "toolset names differ from domain/toolsets.py"


# The toolsets a stdio process was started with (`memspace stdio --toolsets`): its client's own
# choice, as `/mcp?toolsets=` is an HTTP client's.
process_toolsets: ContextVar[tuple[str, ...] | None] = ContextVar(
    "memspace_process_toolsets", default=None)


def chosen_toolsets(ctx: ServerRequestContext[Any, Any], server_choice: str) -> tuple[str, ...]:
    """The toolsets listed to this request's client: its own choice (`?toolsets=` on the URL, or
    stdio's `--toolsets`), else its key's (`key create --toolsets`), else the server's
    (MEMSPACE_TOOLSETS). The most specific one wins, so a client can also ask for fewer.

    Raises:
        InvalidInput: the URL names a toolset that does not exist.
    """
    scope = getattr(ctx.request, "scope", None) or {}
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("toolsets")
    if asked:
        return parse_toolsets(",".join(asked)) or ()
    if (own := process_toolsets.get()) is not None:
        return own
    principal = scope.get("state", {}).get(PRINCIPAL_STATE_KEY)
    caller = process_caller.get()
    if principal is None and caller is not None:
        try:
            principal = caller()
        except MemspaceError:  # a revoked key: its calls are refused, the list need not be
            principal = None
    if principal is not None and principal.toolsets is not None:
        return tuple(principal.toolsets)
    return parse_toolsets(server_choice) or ()


def draws_views(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client negotiated MCP Apps: on this request (2026 protocol, or a stdio
    handshake), or in an earlier `initialize` over stateless HTTP (api/apps_session.py)."""
    scope = getattr(ctx.request, "scope", None) or {}
    return client_supports_apps(ctx) or bool(scope.get("state", {}).get(APPS_STATE_KEY))


def shown(names: Iterable[str], toolsets: Sequence[str], apps: bool) -> set[str]:
    """The names of `names` a client is shown, given its toolsets and whether it draws views."""
    wanted = set(DEFAULT).union(*(TOOLSETS[t] for t in toolsets))
    return {n for n in names
            if (n.endswith(VIEW_SUFFIX) and apps) or (n in wanted and n not in FOLDED)}


def listing(tools: Sequence[dict[str, Any]], toolsets: Sequence[str], apps: bool) -> list[dict[str, Any]]:
    """What `tools/list` answers, from the tools in their wire form: the shown tools, the
    default list first in its own order, each with its input schema compacted."""
    keep = shown((str(t["name"]) for t in tools), toolsets, apps)
    order = {name: i for i, name in enumerate(DEFAULT)}
    chosen = sorted((t for t in tools if t["name"] in keep), key=lambda t: order.get(t["name"], len(order)))
    return [{**t, "inputSchema": compact_schema(t.get("inputSchema"))} for t in chosen]


def compact_schema(schema: Any) -> Any:
    """The same contract in fewer characters: no generated `title` beside every property, and an
    optional argument written as its type rather than `anyOf [type, null]` with a null default
    (leaving it out means the same). Calls are still checked against the full schema."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in NAMED and isinstance(value, dict):  # argument names, not schema keywords
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if (isinstance(options, list) and len(options) == 2 and {"type": "null"} in options
            and "default" in out and out["default"] is None):
        kept = next(o for o in options if o != {"type": "null"})
        out = {**{k: v for k, v in out.items() if k not in ("anyOf", "default")}, **kept}
    return out
