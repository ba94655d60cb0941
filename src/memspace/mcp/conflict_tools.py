"""The conflict queue's tools (docs/conflicts.md): list_conflicts shows the space's open
conflicts side by side, resolve_conflict settles one. Each: who is calling, one service call,
shape the output."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.args import READ_ONLY, WRITES, SpaceArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.conflicts import (
    conflicts_json,
    conflicts_text,
    resolution_json,
    resolution_text,
)
from memspace.present.tool import result

CONFLICT_TOOLS = ToolList()


@CONFLICT_TOOLS.tool(
    name="list_conflicts",
    title="List the open conflicts",
    annotations=READ_ONLY,
    description=(
        "The open conflicts, newest first: memories that disagree, side by side with who "
        "wrote each and why (`kind`). Settle one with resolve_conflict, passing its "
        "`version`."
    ),
)
def list_conflicts(
    ctx: Context,
    space: SpaceArg = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Conflicts per page (1-50).")] = 20,
    cursor: Annotated[str | None, Field(description="`nextCursor` of the previous page.")] = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    page = call(lambda: app.conflicts.listing(who, space, limit, cursor))
    return result(conflicts_text(page), conflicts_json(page))


@CONFLICT_TOOLS.tool(
    name="resolve_conflict",
    title="Settle a conflict",
    annotations=WRITES,
    description=(
        "Settle an open conflict in one write: `keep` the side that holds (a memory id, or "
        "`proposal` for a refused write), `supersede` the sides that no longer hold. Pass the "
        "`version` list_conflicts showed; if it moved, nothing changes (stale_version)."
    ),
)


def resolve_conflict(
    ctx: Context,
    conflictId: Annotated[str, Field(description="Id from list_conflicts.")],  # noqa: N803
    reason: Annotated[str, Field(description="Why (kept in history).")],
    keep: Annotated[str | None, Field(
        description="The side that holds: a memory id or proposal.")] = None,
    supersede: Annotated[list[str] | None, Field(description="Sides that no longer hold.")] = None,
    version: Annotated[str | None, Field(description="The conflict's version as listed.")] = None,
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    done = call(lambda: app.conflicts.resolve(who, conflictId, keep, supersede, reason,
                                              version, space))
    return result(resolution_text(done), resolution_json(done))
