"""The model-facing tools of a key's session (docs/contract.md): the spaces it can use, who it
is, and which space its calls act on by default. Listed right after mcp/tools.py's."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.args import READ_ONLY, WRITES
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import identity_json, spaces_json
from memspace.present.text import identity_text, spaces_text
from memspace.present.tool import result

SESSION_TOOLS = ToolList()


@SESSION_TOOLS.tool(
    name="listSpaces",
    title="List my spaces",
    annotations=READ_ONLY,
    description=(
        "The memory spaces this key can use, with access level (read / readwrite), size and "
        "last activity, and which one is active. Call it when unsure which `space` to pass."
    ),
)
def list_spaces(ctx: Context) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    listing = call(lambda: app.spaces.listing(who))
    return result(spaces_text(listing), {"spaces": spaces_json(listing)})


@SESSION_TOOLS.tool(
    name="whoAmI",
    title="Who am I",
    annotations=READ_ONLY,
    description="The identity behind this connection's key, its grants and its active space.",
)
def who_am_i(ctx: Context) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    identity = call(lambda: app.spaces.identity(who))
    return result(identity_text(identity), identity_json(identity))


@SESSION_TOOLS.tool(
    name="setActiveSpace",
    title="Switch space",
    annotations=WRITES,
    description=(
        "Make a space the default for this key's later calls (tools without `space` act on "
        "it). Persists for the key until changed."
    ),
)
def set_active_space(
    ctx: Context, space: Annotated[str, Field(description="Slug of the space to switch to.")]
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    if not space or not space.strip():
        raise ToolError("invalid_input: pass the slug of a space (listSpaces shows them)")
    chosen = call(lambda: app.access.set_active_space(who, space))
    data = {"activeSpace": chosen.space.slug, "access": chosen.access.value}
    return result(f"Active space is now '{chosen.space.slug}' ({chosen.access.value}).", data)
