"""Tools of the evidence surface (docs/evidence.md): verify_memory and get_chunk. Each: who is
calling, one service call, shape the output (search_memory's `kind` lives in tools.py)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from memspace.mcp.args import READ_ONLY, SpaceArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.code import chunk_json, chunk_text, verify_json, verify_text
from memspace.present.tool import result

# Verification stores the state it found (and re-anchored lines); it never changes a claim.
VERIFIES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                           open_world_hint=False)


# The code tools, in the order clients see them.
CODE_TOOLS = ToolList()


@CODE_TOOLS.tool(
    name="verify_memory",
    title="Verify cited memories against the code",
    annotations=VERIFIES,
    description=(
        "Check that the code a memory cites still says what it said: `memoryId` for one, "
        "nothing for every cited memory. Each ends verified, moved, broken or not_anchored; "
        "fix moved and broken ones with correct_memory."
    ),
)
def verify_memory(
    ctx: Context,
    memoryId: Annotated[str | None, Field(description="One memory; omit for every cited one.")] = None,  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    report = call(lambda: app.verification.verify(who, space, memoryId))
    return result(verify_text(report), verify_json(report))


@CODE_TOOLS.tool(
    name="get_chunk",
    title="Read a code chunk",
    annotations=READ_ONLY,
    description=(
        "One chunk of the space's indexed code in full, with line numbers: the id comes "
        "from search_memory with `kind: code`. Cite what you rely on as "
        "<repo>/<path>:<line> in `evidence` when you save a memory."
    ),
)
def get_chunk(
    ctx: Context,
    chunkId: Annotated[str, Field(description="Chunk id from search_memory kind=code.")],  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    view = call(lambda: app.code.get_chunk(who, chunkId, space))
    return result(chunk_text(view), chunk_json(view))
