"""The model-facing tools of docs/contract.md. Each: who is calling, one service call, shape the output."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
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
from memspace.mcp.evidence_args import DryRunArg, EvidenceArg, list_in_state, search_with_code
from memspace.mcp.identity import call, principal_of
from memspace.mcp.registry import ToolList, app_of
from memspace.present.json import (
    add_json,
    memory_detail_json,
    search_json,
)
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
        "Search what your team's agents and people have stored in a memory space. Call it "
        "BEFORE starting a task, answering a question about the project, or saving something "
        "(to avoid repeats). Pass `query` as a natural-language question (semantic + keyword "
        "hybrid), and/or `keyword` for exact words (typos tolerated on words of 5+ letters), "
        "and/or `category` to filter (alone it lists the newest of that category). Each "
        "result carries `relatedMemories`: facts up to two links away — inactive ones are "
        "history (what a correction replaced), not current truth. Each cited memory shows its "
        "evidence and verification state (verified, moved, broken, not_anchored, unverified). "
        "`kind: code` searches the space's indexed repositories instead, `all` both."
    ),
)
def search_memory(
    ctx: Context,
    query: Annotated[str | None, Field(description="Natural-language question or topic.")] = None,
    keyword: Annotated[str | None, Field(description="Words that must appear (typo-tolerant).")] = None,
    category: Annotated[str | None, Field(description="Only memories of this category.")] = None,
    space: SpaceArg = None,
    limit: Annotated[int, Field(ge=1, le=50, description="How many results (1-50).")] = 10,
    includeProfile: Annotated[bool, Field(description="Add the space profile (recent memories, counts).")] = True,  # noqa: N803
    includeInactive: Annotated[bool, Field(description="Also return superseded or forgotten memories.")] = False,  # noqa: N803
    kind: Annotated[Literal["notes", "code", "all"], Field(description="notes (default): memories; code: chunks of the space's indexed repositories (repo, path, lines, symbol, excerpt; get_chunk reads one whole); all: notes first, then code.")] = "notes",
    provenance: Annotated[list[str] | None, Field(description=(
        "Only memories from these sources: human (people, via the CLI or a view), agent, "
        "document, model (extracted by the model), import. E.g. [\"human\"] for facts "
        "people wrote."))] = None,
    types: TypesArg = None,
    statuses: StatusesArg = None,
    includeBody: IncludeBodyArg = False,  # noqa: N803
    asOf: AsOfArg = None,  # noqa: N803
    knownAt: KnownAtArg = None,  # noqa: N803
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    request = SearchRequest(query, keyword, category, space, limit, includeProfile, includeInactive,
                            provenance=tuple(provenance or ()), types=tuple(types or ()),
                            statuses=tuple(statuses or ()), include_body=includeBody,
                            as_of=asOf, known_at=knownAt)
    if kind != "notes":
        return search_with_code(app, who, request, kind)
    found = call(lambda: app.search.search(who, request))
    return result(search_text(found), search_json(found))


@TOOLS.tool(
    name="add_memory",
    title="Save or forget a memory",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    description=(
        "Save what you learned to the shared memory space so every agent and teammate with "
        "access finds it on their next search: decisions, conventions, preferences, findings, "
        "who owns what. Name the subject (no bare 'it'); pass `speaker` and `observedAt` when "
        "the text says 'I' or 'yesterday'. With a model configured the text is split into "
        "atomic facts and linked to what the space already knows (a change of an existing fact "
        "replaces it); otherwise it is stored as one memory. With a model the text is saved at "
        "once (searchable immediately, `status: pending`) and split in the background; pass "
        "`wait: true` to get the facts in the answer instead (takes a model call, seconds). An exact repeat of an active memory is reported as `duplicate` and not stored again. "
        "To fix a fact that is wrong or outdated use `correct_memory` instead. With "
        "`action: \"forget\"` it deactivates a memory (pass `memoryId`, or the exact `content`) "
        "with a `reason`; history is kept, nothing is erased."
    ),
)
def add_memory(
    ctx: Context,
    content: Annotated[str | None, Field(description="The fact to save (or, with forget, its exact text).")] = None,
    action: Annotated[Literal["save", "forget"], Field(description="`save` (default) or `forget`.")] = "save",
    category: Annotated[str | None, Field(description="Short label, e.g. decision, convention, preference, fact.")] = None,
    space: SpaceArg = None,
    memoryId: Annotated[str | None, Field(description="With forget: id of the memory to deactivate.")] = None,  # noqa: N803
    reason: Annotated[str | None, Field(description="With forget: why it no longer holds.")] = None,
    speaker: Annotated[str | None, Field(description="Who said it, so 'I'/'we' resolve to a name (e.g. the user's name).")] = None,
    observedAt: Annotated[datetime | None, Field(description="When it was said (ISO 8601), so 'yesterday' resolves to a date.")] = None,  # noqa: N803
    idempotencyKey: Annotated[str | None, Field(description="Any unique string; retrying with the same key returns the first result instead of saving twice.")] = None,  # noqa: N803
    expectedVersion: Annotated[int | None, Field(ge=1, description="With forget: the `version` you read; refused (stale_version) if the memory changed since.")] = None,  # noqa: N803
    wait: Annotated[bool, Field(description="With a model: true waits for the facts (one model call); false (default) saves now and extracts in the background.")] = False,
    evidence: EvidenceArg = None,
    dryRun: DryRunArg = False,  # noqa: N803
    type: TypeArg = None,
    importance: ImportanceArg = None,
    canonical: Annotated[bool, Field(description="The team's agreed answer on its subject: ranked first in get_context.")] = False,
    supersedes: Annotated[list[str] | None, Field(description="Ids this memory replaces (each gets an UPDATES from it and becomes superseded). Resolves a `conflict` answer when the new claim replaces the old.")] = None,
    force: Annotated[bool, Field(description="Store it even though it contradicts a decision/constraint/architecture memory (both hold). Resolves a `conflict` answer.")] = False,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    if action == "forget":
        gone = call(lambda: app.memories.forget(who, memoryId, content, reason, space,
                                                expectedVersion))
        data = {"status": "forgotten", "memory": memory_json(gone)}
        return result(f"Forgotten (kept as history): [{gone.id}] {gone.content}", data)
    request = AddRequest(content, space, category, speaker, observedAt, idempotencyKey,
                         evidence=tuple(evidence) if evidence is not None else None,
                         memory_type=type, importance=importance, canonical=canonical,
                         supersedes=tuple(supersedes or ()), force=force)
    added = call(lambda: app.memories.submit(who, request, wait=wait, dry_run=dryRun))
    return result(add_text(added), add_json(added))


@TOOLS.tool(
    name="correct_memory",
    title="Correct a memory",
    annotations=WRITES,
    description=(
        "Replace a memory that is wrong or outdated. Creates a new memory with an UPDATES link "
        "to the old one, which becomes inactive (kept as history, shown in relatedMemories). "
        "Get `memoryId` from search_memory or listMemories. Say in `reason` why it changed. "
        "Pass the `version` you read as `expectedVersion`: if someone changed the fact since, "
        "the call is refused (stale_version) instead of overwriting their change."
    ),
)
def correct_memory(
    ctx: Context,
    memoryId: Annotated[str, Field(description="Id of the memory being corrected.")],  # noqa: N803
    content: Annotated[str, Field(description="The corrected fact, complete and self-contained.")],
    reason: Annotated[str | None, Field(description="Why the old fact no longer holds.")] = None,
    category: Annotated[str | None, Field(description="New category; default keeps the old one.")] = None,
    space: SpaceArg = None,
    expectedVersion: Annotated[int | None, Field(ge=1, description="The `version` you read; refused (stale_version) if the fact changed since.")] = None,  # noqa: N803
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
        "One memory with its history: the relations it has (what it UPDATES, EXTENDS or "
        "DERIVES from, and what replaced it) and the memories up to two links away. Use it "
        "to see why a fact changed, who changed it and when."
    ),
)
def get_memory(
    ctx: Context,
    memoryId: Annotated[str, Field(description="Memory id.")],  # noqa: N803
    space: SpaceArg = None,
) -> CallToolResult:
    app = app_of(ctx)
    who = principal_of(ctx)
    detail = call(lambda: app.memories.get(who, memoryId, space))
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
        items = [{**memory_json(c.memory, lean=lean), "change": change_kind(c.memory)}
                 for c in feed.items]
        data = {"space": slug, "changes": items, "nextCursor": feed.next_cursor}
        text = list_text(f"Changes in '{slug}', oldest first", [c.memory for c in feed.items], None,
                         lean=lean)
        return result(f"{text}\nNext time pass since={feed.next_cursor}", data)
    slug, page = call(lambda: app.memories.list(who, space, category, includeInactive, limit, cursor,
                                                 types, statuses, asOf, knownAt))
    items = [memory_json(m, lean=lean) for m in page.items]
    data = {"space": slug, "memories": items, "nextCursor": page.next_cursor}
    return result(list_text(f"Memories in '{slug}'", page.items, page.next_cursor, lean=lean), data)
