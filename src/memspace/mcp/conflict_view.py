"""The Conflicts view's tools (docs/conflicts.md): `conflicts_ui` opens it on a space's queue,
and the app-only `list_conflicts_ui` / `resolve_conflict_ui` are what its clicks call. The same
service and access rules as list_conflicts and resolve_conflict."""

from __future__ import annotations

import functools
from typing import Annotated

from mcp.server.apps import Apps
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memspace.mcp.app_tools import APP_ONLY
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

PAGE = 50


# The view and its helpers, each bound to the view's `ui://` URI (register_conflict_view).
CONFLICT_VIEW_TOOLS = ToolList()


@CONFLICT_VIEW_TOOLS.tool(
    name="conflicts_ui",
    title="Show the conflict queue",
    annotations=READ_ONLY,
    description=(
        "Show the user the space's open conflicts (memories that disagree, side by side, "
        "with who wrote each and why they conflict) so they can settle each in two clicks: "
        "pick the side that holds, confirm. Call it when the user wants to review or settle "
        "conflicts. Without a UI it lists them; settle with resolve_conflict."
    ),
)
def conflicts_ui(ctx: Context, space: SpaceArg = None) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    page = call(lambda: app.conflicts.listing(who, space, PAGE))
    seen = call(lambda: app.spaces.glance(who, page.space))
    return result(conflicts_text(page), {**conflicts_json(page), "access": seen.access.value})


@CONFLICT_VIEW_TOOLS.tool(visibility=APP_ONLY, name="list_conflicts_ui", annotations=READ_ONLY,
                          description="The space's open conflicts, newest first.")
def list_conflicts_ui(
    ctx: Context, space: SpaceArg = None,
    limit: Annotated[int, Field(ge=1, le=50, description="How many (1-50).")] = PAGE,
    cursor: Annotated[str | None, Field(description="nextCursor of the last page.")] = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    page = call(lambda: app.conflicts.listing(who, space, limit, cursor))
    return result(conflicts_text(page), conflicts_json(page))


@CONFLICT_VIEW_TOOLS.tool(visibility=APP_ONLY, name="resolve_conflict_ui",
           annotations=WRITES,
           description="Settle one conflict as the person chose in the view.")
def resolve_conflict_ui(
    ctx: Context,
    conflictId: Annotated[str, Field(description="Conflict id.")],  # noqa: N803
    reason: Annotated[str, Field(description="Why.")],
    version: Annotated[str, Field(description="The version the view showed.")],
    keep: Annotated[str | None, Field(description="The side that holds.")] = None,
    supersede: Annotated[list[str] | None, Field(description="Sides that no longer hold.")] = None,
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    done = call(lambda: app.conflicts.resolve(who, conflictId, keep, supersede, reason,
                                              version, space))
    return result(resolution_text(done), resolution_json(done))


def register_conflict_view(apps: Apps, uri: str) -> None:
    """Add the Conflicts view's tools to `apps`, bound to its `ui://` URI."""
    CONFLICT_VIEW_TOOLS.register(functools.partial(apps.tool, resource_uri=uri))
