"""Tools of a memory's lifecycle (docs/lifecycle.md): mark_memory sets where a memory stands,
patch_memory edits its text into the next version, getMemories reads many at once. Each: who
is calling, one service call, shape the output."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from memspace.mcp.args import READ_ONLY, WRITES, KnownAtArg, ObservedAtArg, SpaceArg
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import add_json, changes_json, marked_json, revisions_json
from memspace.present.records import memory_json
from memspace.present.text import (
    add_text,
    changes_text,
    marked_text,
    memory_line,
    revisions_text,
)
from memspace.present.tool import result


class Replace(BaseModel):
    old: str = Field(description="Text that occurs exactly once in the memory.")
    new: str = Field(description="What it becomes (empty deletes it).")


# The lifecycle tools, in the order clients see them.
LIFECYCLE_TOOLS = ToolList()


@LIFECYCLE_TOOLS.tool(
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
    app = app_of(ctx)
    who = principal_of(ctx)
    marked = call(lambda: app.lifecycle.mark(who, memoryId, status, reason, space,
                                             expectedVersion))
    return result(marked_text(marked), marked_json(marked))


@LIFECYCLE_TOOLS.tool(
    name="patch_memory",
    title="Edit a memory's text",
    annotations=WRITES,
    description=(
        "Edit a memory without retyping it: `append` or `prepend` text, or `replace` "
        "{old, new} where `old` occurs exactly once (if it does not occur the call fails "
        "with invalid_input and nothing changes). The result is the memory's next version "
        "(the old one is kept as history, superseded). Pass the `version` you read as "
        "`expectedVersion`: if someone changed the memory since, the call is refused "
        "(stale_version)."
    ),
)
def patch_memory(
    ctx: Context,
    memoryId: Annotated[str, Field(description="Id of the memory to edit.")],  # noqa: N803
    append: Annotated[str | None, Field(description="Text to add at the end.")] = None,
    prepend: Annotated[str | None, Field(description="Text to add at the start.")] = None,
    replace: Annotated[Replace | None, Field(description="{old, new}: replace the one occurrence of `old`.")] = None,
    expectedVersion: Annotated[int | None, Field(ge=1, description="The `version` you read; refused (stale_version) if the memory changed since.")] = None,  # noqa: N803
    reason: Annotated[str | None, Field(description="Why (kept on the link to the old version).")] = None,
    space: SpaceArg = None,
    observedAt: ObservedAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    edited = call(lambda: app.memories.patch(
        who, memoryId, append, prepend, replace.old if replace else None,
        replace.new if replace else None, space, expectedVersion, reason, observedAt))
    return result(add_text(edited), add_json(edited))


@LIFECYCLE_TOOLS.tool(
    name="getMemories",
    title="Read several memories whole",
    annotations=READ_ONLY,
    description=(
        "Read up to 50 memories by id in one call, each whole; ids not found in the space are "
        "listed in `missing`. The same as getMemory with `ids`, which lists it."
    ),
)
def get_memories(
    ctx: Context,
    ids: Annotated[list[str], Field(min_length=1, max_length=50, description="Memory ids (1-50).")],
    space: SpaceArg = None,
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, found, missing = call(lambda: app.memories.get_many(who, ids, space, known_at=knownAt))
    lines = [f"{len(found)} memory(ies) from '{slug}':", *(memory_line(m) for m in found)]
    if missing:
        lines.append("Not found in this space: " + ", ".join(missing))
    data = {"space": slug, "memories": [memory_json(m) for m in found], "missing": missing}
    return result("\n".join(lines), data)


@LIFECYCLE_TOOLS.tool(
    name="get_changes_since",
    title="What changed since",
    annotations=READ_ONLY,
    description=(
        "Catch up when you come back to a space: what others created, updated, superseded, "
        "forgot or marked since `since` (ISO 8601) or your last `cursor`, oldest first, a "
        "page at a time. Call again with `cursor` while `hasMore`; keep the last cursor for "
        "next time."
    ),
)
def get_changes_since(
    ctx: Context,
    since: Annotated[str | None, Field(description="ISO 8601 time (first call).")] = None,
    cursor: Annotated[str | None, Field(description="`cursor` of the previous page.")] = None,
    types: Annotated[list[str] | None, Field(description="Only these types.")] = None,
    limit: Annotated[int | None, Field(ge=1, le=100, description="Changes per page (1-100, default 20).")] = None,
    maxTokens: Annotated[int | None, Field(ge=200, description="Bound a page's size in tokens.")] = None,  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    page = call(lambda: app.changes.since(who, since, cursor, types, limit, maxTokens, space))
    return result(changes_text(page), changes_json(page))


@LIFECYCLE_TOOLS.tool(
    name="list_memory_revisions",
    title="Versions of a memory",
    annotations=READ_ONLY,
    description=(
        "Every version of the fact a memory holds, oldest first: each correction, patch "
        "and restatement as an excerpt, with who wrote it, when and why, and the status "
        "changes (mark_memory) set on each. Pass any version's id."
    ),
)
def list_memory_revisions(
    ctx: Context,
    memoryId: Annotated[str, Field(description="Id of any version of the memory.")],  # noqa: N803
    space: SpaceArg = None,
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, line = call(lambda: app.lifecycle.revisions(who, memoryId, space, knownAt))
    return result(revisions_text(slug, line), revisions_json(slug, line))


@LIFECYCLE_TOOLS.tool(
    name="rename_category",
    title="Rename a category",
    annotations=WRITES,
    description=(
        "Rename a category across a space in one write: every current memory of category "
        "`old` gets its next version under `new` (the old versions are kept as history, "
        "superseded; their ids resolve to the new ones in getMemory's history)."
    ),
)
def rename_category(
    ctx: Context,
    old: Annotated[str, Field(description="The category to rename.")],
    new: Annotated[str, Field(description="Its new name.")],
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    slug, renamed = call(lambda: app.memories.rename_category(who, space, old, new))
    data = {"space": slug, "renamed": len(renamed),
            "memories": [memory_json(m, lean=True) for m in renamed]}
    return result(f"Renamed category '{old}' to '{new}' in '{slug}': {len(renamed)} "
                  "memory(ies), each now at its next version.", data)
