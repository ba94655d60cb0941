"""The model-facing tools of docs/contract.md. Each: who is calling, one service call, shape the output."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from memspace.mcp.args import (
    READ_ONLY,
    WRITES,
    AsOfArg,
    CursorArg,
    ImportanceArg,
    IncludeBodyArg,
    KnownAtArg,
    LimitArg,
    ObservedAtArg,
    SpaceArg,
    StatusesArg,
    TypeArg,
    TypesArg,
)
from memspace.mcp.evidence_args import (
    DryRunArg,
    EvidenceArg,
    list_in_state,
    search_answer_json,
    search_with_code,
)
from memspace.mcp.identity import call, principal_of
from memspace.mcp.lifecycle_tools import get_memories
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import (
    add_json,
    memory_detail_json,
)
from memspace.present.pages import page_json
from memspace.present.records import change_kind, memory_json
from memspace.present.text import (
    add_text,
    list_text,
    memory_text,
    search_text,
)
from memspace.present.tool import result
from memspace.services.memories import AddRequest
from memspace.services.search import SearchRequest

# The model-facing tools, in the order clients see them (after mcp/document_tools.py's).
TOOLS = ToolList()


@TOOLS.tool(
    name="search_memory",
    title="Search shared memory",
    annotations=READ_ONLY,
    description=(
        "Search the team's shared memory. Call it BEFORE answering a question about the "
        "project, starting a task or saving (to avoid repeats). `query`: a question in "
        "natural language (semantic + keyword); `keyword`: exact words (typo-tolerant); "
        "`category` alone lists its newest. Each result carries `relatedMemories` up to two "
        "links away (inactive ones are history, not current truth) and, for cited notes, "
        "their verification state. `kind: code` searches the indexed repositories."
    ),
)
def search_memory(
    ctx: Context,
    query: Annotated[str | None, Field(description="A question or topic.")] = None,
    keyword: Annotated[str | None, Field(description="Words that must appear.")] = None,
    category: Annotated[str | None, Field(description="Only memories of this category.")] = None,
    space: SpaceArg = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Results (1-50).")] = 10,
    includeProfile: Annotated[bool, Field(description="Add the space profile.")] = True,  # noqa: N803
    includeInactive: Annotated[bool, Field(description="Also superseded or forgotten memories.")] = False,  # noqa: N803
    kind: Annotated[Literal["notes", "code", "all"], Field(description="notes (default), code (indexed repositories) or all.")] = "notes",
    provenance: Annotated[list[str] | None, Field(description=(
        "Only from these sources: human, agent, document, model, import."))] = None,
    types: TypesArg = None,
    statuses: StatusesArg = None,
    includeBody: IncludeBodyArg = False,  # noqa: N803
    asOf: AsOfArg = None,  # noqa: N803
    knownAt: KnownAtArg = None,  # noqa: N803
    fullRecords: Annotated[bool, Field(description="Every field of each hit in the JSON (default: what the text shows).")] = False,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    request = SearchRequest(query, keyword, category, space, limit, includeProfile, includeInactive,
                            provenance=tuple(provenance or ()), types=tuple(types or ()),
                            statuses=tuple(statuses or ()), include_body=includeBody,
                            as_of=asOf, known_at=knownAt)
    if kind != "notes":
        return search_with_code(app, who, request, kind, fullRecords)
    found = call(lambda: app.search.search(who, request))
    return result(search_text(found), search_answer_json(found, fullRecords))


@TOOLS.tool(
    name="add_memory",
    title="Save or forget a memory",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    description=(
        "Save a durable fact the team should know: a decision, convention, preference, "
        "finding, who owns what. One self-contained fact per call; name the subject (no bare "
        "'it'). Give decisions, constraints and architecture a `type`: a save that "
        "contradicts one answers `conflict` and stores nothing until you pass `supersedes` or "
        "`force`. An exact repeat answers `duplicate`. To fix a wrong fact use "
        "correct_memory. `action: forget` deactivates one (`memoryId`, `reason`); history is "
        "kept."
    ),
)
def add_memory(
    ctx: Context,
    content: Annotated[str | None, Field(description="The fact (with forget: its exact text, or pass memoryId).")] = None,
    action: Annotated[Literal["save", "forget"], Field(description="save (default) or forget.")] = "save",
    category: Annotated[str | None, Field(description="A short label, e.g. convention.")] = None,
    space: SpaceArg = None,
    memoryId: Annotated[str | None, Field(description="forget: the memory's id.")] = None,  # noqa: N803
    reason: Annotated[str | None, Field(description="forget: why it no longer holds.")] = None,
    speaker: Annotated[str | None, Field(description="Who said it, so 'I' resolves to a name.")] = None,
    observedAt: Annotated[datetime | None, Field(description="When it was said (ISO 8601), so 'yesterday' resolves.")] = None,  # noqa: N803
    idempotencyKey: Annotated[str | None, Field(description="A unique string: a retry with it returns the first result.")] = None,  # noqa: N803
    expectedVersion: Annotated[int | None, Field(ge=1, description="forget: the version you read (refused if it moved).")] = None,  # noqa: N803
    wait: Annotated[bool, Field(description="With a model: wait for the extracted facts (seconds).")] = False,
    evidence: EvidenceArg = None,
    dryRun: DryRunArg = False,  # noqa: N803
    type: TypeArg = None,
    importance: ImportanceArg = None,
    canonical: Annotated[bool, Field(description="The team's agreed answer on its subject (ranked first).")] = False,
    supersedes: Annotated[list[str] | None, Field(description="Ids this replaces (they become superseded).")] = None,
    force: Annotated[bool, Field(description="Store it although it contradicts a decision (both hold).")] = False,
    expiresAt: Annotated[str | None, Field(description="When it stops holding (ISO 8601 with offset).")] = None,  # noqa: N803
    forgetAfter: Annotated[str | None, Field(description="Or how long it holds: 90m, 12h, 30d, 2w.")] = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    if action == "forget":
        gone = call(lambda: app.memories.forget(who, memoryId, content, reason, space,
                                                expectedVersion))
        short = app.memories.short_id(gone)
        data = {"status": "forgotten", "memory": {**memory_json(gone), "shortId": short}}
        return result(f"Forgotten (kept as history): [{short}] {gone.content}", data)
    request = AddRequest(content, space, category, speaker, observedAt, idempotencyKey,
                         evidence=tuple(evidence) if evidence is not None else None,
                         memory_type=type, importance=importance, canonical=canonical,
                         supersedes=tuple(supersedes or ()), force=force,
                         expires_at=expiresAt, forget_after=forgetAfter)
    added = call(lambda: app.memories.submit(who, request, wait=wait, dry_run=dryRun))
    return result(add_text(added), add_json(added))


@TOOLS.tool(
    name="correct_memory",
    title="Correct a memory",
    annotations=WRITES,
    description=(
        "Replace a wrong or outdated memory: the new one UPDATES the old, which is kept as "
        "history. Pass the `version` you read as `expectedVersion`: if the fact changed "
        "since, the call is refused (stale_version) instead of overwriting that change."
    ),
)
def correct_memory(
    ctx: Context,
    memoryId: Annotated[str, Field(description="The memory to correct.")],  # noqa: N803
    content: Annotated[str, Field(description="The corrected fact, self-contained.")],
    reason: Annotated[str | None, Field(description="Why it changed.")] = None,
    category: Annotated[str | None, Field(description="New category (default: kept).")] = None,
    space: SpaceArg = None,
    expectedVersion: Annotated[int | None, Field(ge=1, description="The version you read.")] = None,  # noqa: N803
    evidence: EvidenceArg = None,
    dryRun: DryRunArg = False,  # noqa: N803
    observedAt: ObservedAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    added = call(lambda: app.memories.correct(who, memoryId, content, space, category, reason,
                                              expectedVersion, evidence, dryRun, observedAt))
    return result(add_text(added), add_json(added))


@TOOLS.tool(
    name="getMemory",
    title="Get a memory and its history",
    annotations=READ_ONLY,
    description=(
        "Read memories whole, with their history: one by `memoryId` (its relations, its "
        "versions, what replaced it), or up to 50 by `ids`. Use it to see why a fact changed, "
        "who changed it and when."
    ),
)
def get_memory(
    ctx: Context,
    memoryId: Annotated[str | None, Field(description="One memory's id.")] = None,  # noqa: N803
    ids: Annotated[list[str] | None, Field(min_length=1, max_length=50, description="Several ids (1-50); unknown ones are listed in `missing`.")] = None,
    space: SpaceArg = None,
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    if ids is not None:
        if memoryId is not None:
            raise ToolError("invalid_input: pass `memoryId` for one memory or `ids` for "
                            "several, not both")
        return get_memories(ctx, ids, space, knownAt)
    if memoryId is None:
        raise ToolError("invalid_input: pass `memoryId` (one memory) or `ids` (up to 50)")
    app = app_of(ctx)
    who = principal_of(ctx)
    detail = call(lambda: app.memories.get(who, memoryId, space, known_at=knownAt))
    return result(memory_text(detail), memory_detail_json(detail))


@TOOLS.tool(
    name="listMemories",
    title="List memories",
    annotations=READ_ONLY,
    description=(
        "List the memories of a space, newest first, a page at a time (pass back `nextCursor` "
        "as `cursor`). To catch up on what other agents changed, pass `since` (an ISO time, "
        "or the `nextCursor` of your last `since` call): changes come oldest first, each "
        "marked created / superseded / forgotten, and `nextCursor` is always returned — keep "
        "it and pass it as `since` next time to get only what happened after."
    ),
)
def list_memories(
    ctx: Context,
    space: SpaceArg = None,
    category: Annotated[str | None, Field(description="Only this category.")] = None,
    includeInactive: Annotated[bool, Field(description="Include superseded and forgotten memories.")] = False,  # noqa: N803
    limit: LimitArg = 20,
    cursor: CursorArg = None,
    since: Annotated[str | None, Field(description="ISO time or a change cursor: list changes since then, oldest first.")] = None,
    verification: Annotated[Literal["verified", "moved", "broken", "not_anchored", "unverified"] | None, Field(description="Only active memories whose evidence is in this state (e.g. broken: notes whose cited code is gone).")] = None,
    types: TypesArg = None,
    statuses: StatusesArg = None,
    includeBody: IncludeBodyArg = False,  # noqa: N803
    asOf: AsOfArg = None,  # noqa: N803
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    if verification:
        return list_in_state(app, who, verification, space, limit, cursor)
    lean = not includeBody
    if since:
        slug, feed = call(lambda: app.memories.changes(who, since, space, category, limit))
        data = page_json(slug, "changes", feed, lambda c: {**memory_json(c.memory, lean=lean),
                                                           "change": change_kind(c.memory)})
        text = list_text(f"Changes in '{slug}', oldest first", [c.memory for c in feed.items], None,
                         lean=lean, short=feed.short)
        return result(f"{text}\nNext time pass since={feed.next_cursor}", data)
    slug, page = call(lambda: app.memories.list(who, space, category, includeInactive, limit, cursor,
                                                 types, statuses, asOf, knownAt))
    data = page_json(slug, "memories", page, lambda m: memory_json(m, lean=lean))
    return result(list_text(f"Memories in '{slug}'", page.items, page.next_cursor, lean=lean,
                            short=page.short), data)
