"""Tools of a memory's lifecycle (docs/lifecycle.md): mark_memory sets where a memory stands.
Each: who is calling, one service call, shape the output."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from memspace.bootstrap import Container
from memspace.mcp.identity import call, principal_of
from memspace.mcp.tools import WRITES, SpaceArg
from memspace.present.json import marked_json
from memspace.present.text import marked_text
from memspace.present.tool import result


def register_lifecycle_tools(server: MCPServer, app: Container) -> None:
    """Add mark_memory to `server`, bound to the services of `app`."""

    @server.tool(
        name="mark_memory",
        title="Mark where a memory stands",
        annotations=WRITES,
        description=(
            "Set a memory's status: `disputed` when you have reason to doubt it (get_context "
            "then lists it among the unresolved conflicts), `historical` when it was true but "
            "no longer is and nothing replaces it (left out of get_context), `current` to "
            "restore it. Say why in `reason`: who, when and why are kept in its history. To "
            "replace a memory with a new claim use correct_memory (it leaves the old one "
            "`superseded`). Pass the `version` you read as `expectedVersion` to refuse the "
            "change (stale_version) if someone changed the memory since."
        ),
    )
    def mark_memory(
        ctx: Context,
        memoryId: Annotated[str, Field(description="Id of the memory to mark.")],  # noqa: N803
        status: Annotated[Literal["historical", "disputed", "current"], Field(description="historical | disputed | current.")],
        reason: Annotated[str, Field(description="Why (kept in the memory's history).")],
        expectedVersion: Annotated[int | None, Field(ge=1, description="The `version` you read; refused (stale_version) if the memory changed since.")] = None,  # noqa: N803
        space: SpaceArg = None,
    ) -> CallToolResult:
        who = principal_of(ctx)
        marked = call(lambda: app.lifecycle.mark(who, memoryId, status, reason, space,
                                                 expectedVersion))
        return result(marked_text(marked), marked_json(marked))
