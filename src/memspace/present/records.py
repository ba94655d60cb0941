"""Wire shapes of the domain's records, with the field names of docs/contract.md (camelCase): the
pieces present.json builds answers from, and what the export writes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memspace.domain.bitemporal import expired, superseded_at, utc, valid_from_of
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE
from memspace.domain.models import (
    ApiKey,
    Document,
    Handoff,
    Memory,
    Neighbour,
    Relation,
    Space,
    SpaceStats,
    provenance_of,
)


def iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def provenance_json(memory: Memory) -> dict[str, str]:
    """Where a memory came from (recorded, or inferred for one stored before provenance was recorded)."""
    found = provenance_of(memory)
    return {"kind": found.kind.value, "source": found.source}


# A lean read (search_memory, listMemories without includeBody) shows a longer memory as its
# first EXCERPT_CHARS or so, cut at a word, with `bodyChars`: the length of the whole.
EXCERPT_CHARS = 240


def excerpt(text: str, limit: int | None) -> str:
    """`text`, or its first `limit` characters cut back to a word and marked with an ellipsis."""
    if limit is None or len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:") + " …"


def memory_json(memory: Memory, titles: Mapping[str, str] | None = None,
                lean: bool = False) -> dict[str, Any]:
    """`titles` maps document ids to titles, so a fact from a document says which one. `lean`:
    a long content shows as an excerpt, with `bodyChars` (getMemory / getMemories read it
    whole)."""
    shown = excerpt(memory.content, EXCERPT_CHARS if lean else None)
    data: dict[str, Any] = {
        "id": memory.id,
        "content": shown,
        "type": memory.type.value,
        "category": memory.category,
        "status": memory.status.value,
        "active": memory.active,
        "createdAt": iso(memory.created_at),
        "createdBy": memory.created_by,
        "version": memory.version,
        "provenance": provenance_json(memory),
    }
    if memory.suspicious:
        data["suspicious"] = memory.suspicious
    if memory.importance != DEFAULT_IMPORTANCE:
        data["importance"] = memory.importance
    if shown is not memory.content:
        data["bodyChars"] = len(memory.content)
    if memory.canonical:
        data["canonical"] = True
    if memory.superseded_by:
        data["supersededBy"] = memory.superseded_by
    if memory.speaker:
        data["speaker"] = memory.speaker
    if memory.observed_at is not None:
        data["observedAt"] = memory.observed_at.isoformat()  # in the offset the caller gave
    if memory.expires_at is not None:  # docs/lifecycle.md#expiry
        data["expiresAt"] = iso(utc(memory.expires_at))
    data |= interval_json(memory, lean)
    if memory.evidence:
        data["evidence"] = [c.text for c in memory.evidence]
        data["verification"] = memory.verification
        data["verifiedAt"] = iso(memory.verified_at)
    if memory.document_id:
        data["documentId"] = memory.document_id
        if titles and memory.document_id in titles:
            data["documentTitle"] = titles[memory.document_id]
        if memory.origin:
            data["origin"] = memory.origin
    if not memory.active:
        data["invalidatedAt"] = iso(memory.invalidated_at)
        if memory.invalidated_by:
            data["invalidatedBy"] = memory.invalidated_by
        if memory.forget_reason:
            data["forgetReason"] = memory.forget_reason
            data["forgottenBy"] = memory.forgotten_by
    return data


def interval_json(memory: Memory, lean: bool = False) -> dict[str, Any]:
    """`validFrom` (and `validTo` once superseded). Lean reads show `validFrom` only when it is
    not simply when the memory was recorded (`createdAt`)."""
    start = valid_from_of(memory)
    data: dict[str, Any] = {}
    if not lean or start != utc(memory.created_at):
        data["validFrom"] = iso(start)
    ended = memory.invalidated_by and not memory.forget_reason  # superseded
    if memory.valid_to is not None and (ended or expired(memory)):
        data["validTo"] = iso(utc(memory.valid_to))
    return data


def interval_fields(memory: Memory) -> dict[str, Any]:
    """What the export writes of both intervals (docs/time.md): `validFrom`, `validTo`,
    `recordedAt` (createdAt) and `supersededAt` (invalidatedAt of a superseded memory)."""
    return {"validFrom": iso(valid_from_of(memory)),
            "validTo": iso(utc(memory.valid_to)) if memory.valid_to else None,
            "recordedAt": iso(memory.created_at),
            "supersededAt": iso(superseded_at(memory))}


def change_kind(memory: Memory) -> str:
    """How a change-feed entry last changed: created, superseded or forgotten."""
    if memory.active:
        return "created"
    return "forgotten" if memory.forget_reason else "superseded"


# A lean read shows a related memory as this much of its content, with what links it.
RELATED_EXCERPT_CHARS = 120


def neighbour_json(neighbour: Neighbour, titles: Mapping[str, str] | None = None,
                   lean: bool = False) -> dict[str, Any]:
    """A memory up to two links away. `lean`: only what tells it apart (id, a short excerpt,
    type, status) and how it is linked; getMemory reads the rest."""
    if lean:
        memory = neighbour.memory
        shown = excerpt(memory.content, RELATED_EXCERPT_CHARS)
        data: dict[str, Any] = {"id": memory.id, "content": shown, "type": memory.type.value,
                                "status": memory.status.value, "active": memory.active}
        if shown is not memory.content:
            data["bodyChars"] = len(memory.content)
        if memory.superseded_by:
            data["supersededBy"] = memory.superseded_by
        if not memory.active and memory.invalidated_by:
            data["invalidatedBy"] = memory.invalidated_by
    else:
        data = memory_json(neighbour.memory, titles)
    data["hops"] = neighbour.hops
    data["relation"] = neighbour.via.value
    # "out": the nearer memory points at this one (it updates/extends/derives from it).
    data["direction"] = neighbour.direction
    return data


def relation_json(relation: Relation) -> dict[str, Any]:
    data: dict[str, Any] = {
        "from": relation.source_id,
        "to": relation.target_id,
        "type": relation.type.value,
        "createdAt": iso(relation.created_at),
        "createdBy": relation.created_by,
    }
    if relation.reason:
        data["reason"] = relation.reason
    return data


def space_json(space: Space) -> dict[str, Any]:
    return {
        "id": space.id,
        "slug": space.slug,
        "name": space.name,
        "description": space.description,
        "createdAt": iso(space.created_at),
        "lastActiveAt": iso(space.last_active_at),
    }


def document_json(document: Document) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": document.id,
        "title": document.title,
        "kind": document.kind,
        "sizeBytes": document.size_bytes,
        "sha256": document.sha256,
        "status": document.status.value,
        "factCount": document.fact_count,
        "chunksTotal": document.chunks_total,
        "chunksDone": document.chunks_done,
        "createdAt": iso(document.created_at),
        "createdBy": document.created_by,
    }
    if document.error:
        data["error"] = document.error
    return data


def key_json(key: ApiKey, slugs: dict[str, str]) -> dict[str, Any]:
    """`slugs` maps space ids to slugs: grants are shown by the name users type."""
    return {
        "id": key.id,
        "name": key.name,
        "prefix": key.prefix,
        "grants": {slugs.get(sid, sid): access.value for sid, access in key.grants.items()},
        "defaultSpace": slugs.get(key.default_space_id or ""),
        "activeSpace": slugs.get(key.active_space_id or ""),
        "createdAt": iso(key.created_at),
        "revokedAt": iso(key.revoked_at),
        "toolsets": list(key.toolsets) if key.toolsets is not None else None,
    }


def counts_json(stats: SpaceStats) -> dict[str, Any]:
    return {
        "activeMemories": stats.active_memories,
        "inactiveMemories": stats.inactive_memories,
        "relations": stats.relations,
        "documents": stats.documents,
    }


def handoff_json(handoff: Handoff) -> dict[str, Any]:
    return {
        "id": handoff.id,
        "agent": handoff.agent,
        "topic": handoff.topic,
        "summary": handoff.summary,
        "done": list(handoff.done),
        "nextSteps": list(handoff.next_steps),
        "openQuestions": list(handoff.open_questions),
        "links": list(handoff.links),
        **({"evidence": list(handoff.evidence)} if handoff.evidence else {}),
        "createdAt": iso(handoff.created_at),
        "createdBy": handoff.created_by,
    }
