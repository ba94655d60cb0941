"""Wire shapes of the services' answers (docs/contract.md, camelCase), built from present.records;
shared by MCP, REST and the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memspace.domain.lifecycle import Revision
from memspace.domain.models import RelationType
from memspace.present.records import (
    EXCERPT_CHARS,
    counts_json,
    document_json,
    excerpt,
    handoff_json,
    iso,
    memory_json,
    neighbour_json,
    relation_json,
    space_json,
)
from memspace.present.timeline import TODAY_LEFT_OUT, slice_json, timeline_json

# The result types only for type checking: the idempotency ledger (services/memories/memory_writes.py)
# imports this module at run time, to store an add's answer in its wire form.
if TYPE_CHECKING:
    from memspace.services.access import Identity, ListedSpace, SpaceListing
    from memspace.services.briefing import Briefing, GraphView
    from memspace.services.documents import DocumentPage
    from memspace.services.ingestion import Uploaded
    from memspace.services.lifecycle import ChangesPage, Marked, Version
    from memspace.services.memories import AddResult, Clash, CorrectionPreview, MemoryDetail, Similar
    from memspace.services.search import Profile, SearchHit, SearchResult


def profile_json(profile: Profile) -> dict[str, Any]:
    return {
        **space_json(profile.space),
        "counts": counts_json(profile.stats),
        "openConflicts": [
            {**relation_json(r), "hint": "both are active: correct one or forget the other"}
            for r in profile.open_conflicts
        ],
        "recentMemories": [
            {"id": m.id, "content": excerpt(m.content, EXCERPT_CHARS), "category": m.category,
             "createdAt": iso(m.created_at)}
            for m in profile.recent
        ],
    }


def hit_json(hit: SearchHit, titles: Mapping[str, str], lean: bool = False) -> dict[str, Any]:
    data = memory_json(hit.memory, titles, lean)
    data["score"] = round(hit.score, 6)
    data["matchedBy"] = list(hit.matched_by)
    data["relatedMemories"] = [neighbour_json(n, titles, lean) for n in hit.related]
    return data


def search_json(found: SearchResult, lean_profile: bool = False) -> dict[str, Any]:
    """search_memory's answer; long contents as excerpts with `bodyChars` unless the search
    asked for whole bodies. `lean_profile`: the profile's space and counts only, as the text
    says them (the MCP tool's answer, which some clients give their model in place of the
    text: docs/contract.md); the whole profile is `memspace://profile`."""
    results = [hit_json(hit, found.titles, not found.include_body) for hit in found.hits]
    for shown in (*results, *(r for hit in results for r in hit["relatedMemories"])):
        shown["shortId"] = found.short.get(shown["id"], shown["id"])  # as the text shows it
    data: dict[str, Any] = {
        "space": found.space,
        "searchMode": found.mode,
        # warm: ranked in this replica's memory; cold: on the store's indexes (docs/scaling.md)
        "searchPath": found.path,
        "results": results,
        "total": len(results),
    }
    data |= slice_json(found.at)
    if found.message:
        data["message"] = found.message
    if found.profile is not None:
        whole = profile_json(found.profile)
        data["profile"] = {k: whole[k] for k in ("slug", "counts")} if lean_profile else whole
    elif found.profile_left_out:
        data["profileLeftOut"] = TODAY_LEFT_OUT
    return data


def listed_space_json(listed: ListedSpace) -> dict[str, Any]:
    return {
        **space_json(listed.space),
        "access": listed.access.value,
        "activeMemories": listed.stats.active_memories,
        "documents": listed.stats.documents,
        "isActive": listed.is_active,
        "isDefault": listed.is_default,
    }


def spaces_json(listing: SpaceListing) -> list[dict[str, Any]]:
    return [listed_space_json(s) for s in listing.spaces]


def identity_json(who: Identity) -> dict[str, Any]:
    return {
        "name": who.name,
        "keyId": who.key_id,
        "grants": {g.space.slug: g.access.value for g in who.spaces},
        "usage": {g.space.slug: {"llmCalls": g.usage.llm_calls, "promptTokens": g.usage.prompt_tokens,
                                 "completionTokens": g.usage.completion_tokens} for g in who.spaces},
        "defaultSpace": who.default_space,
        "activeSpace": who.active_space,
        "openConflicts": {g.space.slug: g.open_conflicts for g in who.spaces},
    }


def document_content_json(page: DocumentPage) -> dict[str, Any]:
    """A page of a document's text (REST /content; getDocument's `content`)."""
    content: dict[str, Any] = {
        "total": page.total,
        "offset": page.offset,
        "chunks": [{"index": page.offset + i, "origin": c.origin, "text": c.text}
                   for i, c in enumerate(page.chunks)],
        "nextOffset": page.next_offset,
        "notes": list(page.notes),
    }
    if page.unavailable is not None:
        content["unavailable"] = page.unavailable
    return content


def document_page_json(page: DocumentPage) -> dict[str, Any]:
    """getDocument's answer: the document, and a page of its text as `content`."""
    return {"document": document_json(page.document), "content": document_content_json(page)}


def memory_detail_json(detail: MemoryDetail) -> dict[str, Any]:
    """getMemory's answer; a note saved without waiting adds how its extraction stands:
    `extraction` (pending, extracted or flat) and `extractionReason`."""
    memory = memory_json(detail.memory, detail.titles)
    if detail.note is not None:
        memory |= {"extraction": detail.note.state.value, "extractionReason": detail.note.reason}
    return {
        "space": detail.space,
        "memory": memory,
        "relations": [relation_json(r) for r in detail.relations],
        "relatedMemories": [neighbour_json(n, detail.titles) for n in detail.related],
        "source": document_json(detail.source) if detail.source else None,
        "timeline": timeline_json(detail.timeline),
        **slice_json(detail.at),
    }


def correction_preview_json(preview: CorrectionPreview) -> dict[str, Any]:
    return {
        "space": preview.space,
        "content": preview.content,
        "category": preview.category,
        "replaces": memory_json(preview.replaces),
        "relation": {"from": None, "to": preview.replaces.id, "type": RelationType.UPDATES.value,
                     "reason": preview.reason},
        "supersedes": [preview.replaces.id],
    }


SIMILAR_HINT = "if the new memory replaces this one, call correct_memory with memoryId='{id}'"


def similar_json(similar: Similar) -> dict[str, Any]:
    m = similar.memory
    return {"id": m.id, "content": m.content, "category": m.category, "version": m.version,
            "similarity": round(similar.similarity, 3), "similarTo": similar.similar_to,
            "hint": SIMILAR_HINT.format(id=m.id)}


def add_json(result: AddResult) -> dict[str, Any]:
    """The answer of add_memory and correct_memory (docs/contract.md); a replay is the stored answer
    of the first call, marked `replayed`."""
    if result.replay is not None:
        return {**result.replay, "replayed": True}
    return {
        "status": result.status,
        "mode": result.mode,
        "space": result.space,
        "memories": [memory_json(m) for m in result.memories],
        "relations": [relation_json(r) for r in result.relations],
        "superseded": result.superseded,
        "warnings": result.warnings,
        "similar": [similar_json(s) for s in result.similar],
        "reviewSuggested": bool(result.similar),
        **({"conflict": clash_json(result.clash)} if result.clash is not None else {}),
        # each memory id the answer names -> the short id its text shows (and calls take)
        **({"shortIds": dict(result.short)} if result.short else {}),
        "usage": {
            "llmCalls": result.usage.llm_calls,
            "promptTokens": result.usage.prompt_tokens,
            "completionTokens": result.usage.completion_tokens,
        },
    }


def upload_json(uploaded: Uploaded) -> dict[str, Any]:
    return {**document_json(uploaded.document), "duplicate": uploaded.duplicate}


def graph_json(graph: GraphView) -> dict[str, Any]:
    return {
        "space": graph.space,
        "nodes": [memory_json(m) for m in graph.nodes],
        "edges": [relation_json(r) for r in graph.edges],
        "truncated": graph.truncated,
        "latestHandoff": handoff_json(graph.latest_handoff) if graph.latest_handoff else None,
        **slice_json(graph.at),
    }


def context_json(brief: Briefing) -> dict[str, Any]:
    """get_context's answer: the packed text and what went into it."""
    meta = {"space": brief.space, "detail": brief.detail, "budget": brief.budget,
            "spent": brief.tokens, "selected": len(brief.included) + len(brief.shortened),
            "shortened": len(brief.shortened), "omitted": len(brief.omitted),
            "omittedIds": brief.omitted,
            "omittedEntries": [{"id": i, "section": brief.omitted_sections.get(i, "")}
                               for i in brief.omitted],
            "handoffId": brief.handoff, "notes": brief.notes,
            **slice_json(brief.at)}
    if brief.at is None or brief.at.known_at is None:  # today's count: not part of a past record
        meta["openConflicts"] = brief.open_conflicts
    return {"context": brief.text, "meta": meta}


def revision_json(revision: Revision) -> dict[str, Any]:
    return {"memoryId": revision.memory_id, "version": revision.version, "kind": revision.kind,
            "status": revision.status, "reason": revision.reason, "by": revision.by,
            "at": iso(revision.at)}


def marked_json(marked: Marked) -> dict[str, Any]:
    """mark_memory's answer: the memory as it is now, the status it had, the history entry."""
    memory = memory_json(marked.memory)
    if marked.memory.id in marked.short:
        memory["shortId"] = marked.short[marked.memory.id]
    return {"space": marked.space, "memory": memory,
            "previousStatus": marked.previous.value, "revision": revision_json(marked.revision)}


def clash_json(clash: Clash) -> dict[str, Any]:
    """A conflict answer's detail: the memory contradicted and the two calls that resolve it."""
    base: dict[str, Any] = {"content": clash.content, "type": clash.memory_type}
    if clash.category:
        base["category"] = clash.category
    return {
        "memory": memory_json(clash.memory),
        "similarity": round(clash.similarity, 4),
        "resolve": {
            "replaces": {"tool": "add_memory",
                         "arguments": {**base, "supersedes": [clash.memory.id]}},
            "bothHold": {"tool": "add_memory", "arguments": {**base, "force": True}},
        },
    }


def changes_json(page: ChangesPage) -> dict[str, Any]:
    """get_changes_since's answer: each change with the memory as it is now (an excerpt and
    its size), oldest first; `cursor` continues it."""
    return {
        "space": page.space,
        "changes": [{"change": c.kind, **memory_json(c.memory, lean=True),
                     "bodyChars": len(c.memory.content),
                     **({"shortId": page.short[c.memory.id]} if c.memory.id in page.short else {})}
                    for c in page.changes],
        "hasMore": page.has_more,
        "cursor": page.cursor,
        "types": [t.value for t in page.types],
    }


def revisions_json(space: str, line: list[Version]) -> dict[str, Any]:
    """list_memory_revisions' answer: every version oldest first, as excerpts, with who, when
    and why, and the status changes set on each."""
    return {"space": space, "revisions": [
        {**memory_json(v.memory, lean=True), "why": v.why,
         "marks": [revision_json(r) for r in v.marks]} for v in line]}
