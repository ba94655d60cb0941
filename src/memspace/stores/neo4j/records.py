"""Domain records <-> Neo4j properties (camelCase, as docs/contract.md names them).

Datetimes go in as aware UTC (the driver stores a zoned DateTime with nanosecond precision)
and come back through `to_native()`, which keeps the microseconds, so a record read back
compares equal to the one written. A memory's come back as microseconds since the epoch
(cypher.fields.micros, `from_micros`): the same instant, without the driver's DateTime.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

import numpy as np

from memspace.domain.bitemporal import valid_from_of
from memspace.domain.evidence_codec import evidence_of, evidence_text
from memspace.domain.heads import MemoryHead
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE, MemoryStatus, MemoryType, status_today
from memspace.domain.models import (
    Access,
    ApiKey,
    Document,
    DocumentStatus,
    Handoff,
    Memory,
    Provenance,
    ProvenanceKind,
    Relation,
    RelationType,
    Space,
)
from memspace.domain.ports import Vector
from memspace.domain.text import index_terms

Props = dict[str, Any]


def utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def floats(vector: Vector) -> list[float]:
    return [float(x) for x in vector]


def _dt(value: Any) -> datetime:
    return cast(datetime, value.to_native()).astimezone(UTC)


def _opt_dt(value: Any) -> datetime | None:
    return None if value is None else _dt(value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def at_micros(value: int) -> datetime:
    """A datetime read as microseconds since the epoch (cypher.fields.micros), in UTC."""
    return _EPOCH + timedelta(microseconds=value)


def from_micros(value: int | None) -> datetime | None:
    return None if value is None else at_micros(value)


def space_props(space: Space) -> Props:
    return {
        "id": space.id, "slug": space.slug, "name": space.name, "description": space.description,
        "createdAt": utc(space.created_at), "lastActiveAt": utc(space.last_active_at),
    }


def space_from(p: Props) -> Space:
    return Space(p["id"], p["slug"], p["name"], p["description"], _dt(p["createdAt"]),
                 _dt(p["lastActiveAt"]), p.get("instructions") or "")


def key_props(key: ApiKey) -> Props:
    return {
        "id": key.id, "name": key.name, "prefix": key.prefix, "sha256": key.sha256,
        "defaultSpaceId": key.default_space_id, "activeSpaceId": key.active_space_id,
        "createdAt": utc(key.created_at),
        "revokedAt": utc(key.revoked_at) if key.revoked_at is not None else None,
        "toolsets": list(key.toolsets) if key.toolsets is not None else None,
    }


def key_from(p: Props, grants: list[list[Any]]) -> ApiKey:
    """A key from its properties and `[space id, access, space]` per grant."""
    return ApiKey(
        id=p["id"], name=p["name"], prefix=p["prefix"], sha256=p["sha256"],
        grants={space_id: Access(access) for space_id, access, _ in grants},
        default_space_id=p["defaultSpaceId"], active_space_id=p["activeSpaceId"],
        created_at=_dt(p["createdAt"]), revoked_at=_opt_dt(p["revokedAt"]),
        toolsets=tuple(p["toolsets"]) if p.get("toolsets") is not None else None,
        spaces=tuple(space_from(space) for _, _, space in grants),
    )


def memory_row(space_id: str, m: Memory) -> Props:
    """A new memory's properties (`null` ones are not stored) and, apart, its embedding.

    The embedding is stored twice: as its float32 bytes (`vector`), which is what the vector
    cache loads, and, after the write, as the float array the vector index reads (`embedding`,
    for ad-hoc Cypher; stores/neo4j/vector_index.py). Bolt returns a float array as one
    Python float per component: a first start read 100,000 vectors in 18 s that way, and
    held ~1 GB of floats while it did."""
    props = _memory_props(space_id, m)
    if m.embedding is not None:
        props["vector"] = np.asarray(m.embedding, dtype="<f4").tobytes()
        props["vectorPending"] = True  # until stores/neo4j/vector_index.py sets `embedding`
    return {"props": props,
            "embedding": floats(m.embedding) if m.embedding is not None else None}


def _memory_props(space_id: str, m: Memory) -> Props:
    return {
        "id": m.id, "spaceId": space_id, "content": m.content, "category": m.category,
        "active": m.active, "createdAt": utc(m.created_at), "createdBy": m.created_by,
        "contentHash": m.content_hash, "documentId": m.document_id, "origin": m.origin,
        "invalidatedAt": utc(m.invalidated_at) if m.invalidated_at is not None else None,
        "invalidatedBy": m.invalidated_by, "forgetReason": m.forget_reason,
        "forgottenBy": m.forgotten_by, "version": m.version, "speaker": m.speaker,
        # ISO text in the caller's own offset (a driver DateTime would keep only UTC)
        "observedAt": m.observed_at.isoformat() if m.observed_at is not None else None,
        "context": m.context, "follows": m.follows,
        "evidence": evidence_text(m.evidence), "verification": m.verification,
        "verifiedAt": utc(m.verified_at) if m.verified_at is not None else None,
        "provenanceKind": m.provenance.kind.value if m.provenance else None,
        "provenanceSource": m.provenance.source if m.provenance else None,
        "suspicious": m.suspicious,
        "terms": index_terms(m.content, m.context),
        "type": m.type.value, "status": m.status.value, "importance": m.importance,
        "canonical": m.canonical,
        "validFrom": utc(valid_from_of(m)),
        "validTo": utc(m.valid_to) if m.valid_to is not None else None,
        "expiresAt": utc(m.expires_at) if m.expires_at is not None else None,
    }


def memory_from(p: Props) -> Memory:
    """A memory as read back; like the SQLite store, without its embedding."""
    return Memory(
        id=p["id"], space_id=p["spaceId"], content=p["content"], category=p["category"],
        embedding=None, active=p["active"], created_at=at_micros(p["createdAt"]),
        created_by=p["createdBy"], content_hash=p["contentHash"], document_id=p["documentId"],
        origin=p["origin"],
        invalidated_at=from_micros(p["invalidatedAt"]), invalidated_by=p["invalidatedBy"],
        forget_reason=p["forgetReason"], forgotten_by=p["forgottenBy"],
        version=p.get("version") or 1,  # memories written before versions existed are v1
        speaker=p.get("speaker"),
        observed_at=datetime.fromisoformat(p["observedAt"]) if p.get("observedAt") else None,
        context=p.get("context"),
        follows=p.get("follows"),
        evidence=evidence_of(p.get("evidence")),
        verification=p.get("verification"),
        verified_at=from_micros(p.get("verifiedAt")),
        provenance=Provenance(ProvenanceKind(p["provenanceKind"]), p.get("provenanceSource") or "")
        if p.get("provenanceKind") else None,
        suspicious=p.get("suspicious"),
        type=MemoryType(p.get("type") or "note"),
        status=MemoryStatus(p.get("status") or status_today(
            p["active"], p["invalidatedBy"], p["forgetReason"])),
        importance=p.get("importance") or DEFAULT_IMPORTANCE,
        canonical=bool(p.get("canonical")),
        valid_from=from_micros(p.get("validFrom")),
        valid_to=from_micros(p.get("validTo")),
        expires_at=from_micros(p.get("expiresAt")),
    )


def head_from(values: list[Any]) -> MemoryHead:
    """A memory's head as cypher.fields.head_fields projects it."""
    memory_id, speaker, observed_at, follows, suspicious = values
    return MemoryHead(memory_id, speaker,
                      datetime.fromisoformat(observed_at) if observed_at else None, follows,
                      suspicious)


def relation_props(r: Relation) -> Props:
    return {"source": r.source_id, "target": r.target_id, "createdAt": utc(r.created_at),
            "createdBy": r.created_by, "reason": r.reason}


def relation_from(p: Props) -> Relation:
    return Relation(p["source"], p["target"], RelationType(p["type"]), _dt(p["createdAt"]),
                    p["createdBy"], p["reason"])


def document_props(d: Document) -> Props:
    return {
        "id": d.id, "spaceId": d.space_id, "title": d.title, "kind": d.kind,
        "sizeBytes": d.size_bytes, "sha256": d.sha256, "status": d.status.value,
        "error": d.error, "factCount": d.fact_count, "createdAt": utc(d.created_at),
        "createdBy": d.created_by, "chunksTotal": d.chunks_total, "chunksDone": d.chunks_done,
        "uploadedByKey": d.uploaded_by_key,
    }


def document_from(p: Props) -> Document:
    return Document(
        id=p["id"], space_id=p["spaceId"], title=p["title"], kind=p["kind"],
        size_bytes=p["sizeBytes"], sha256=p["sha256"], status=DocumentStatus(p["status"]),
        created_at=_dt(p["createdAt"]), created_by=p["createdBy"], fact_count=p["factCount"],
        error=p["error"],
        # Documents stored before ingestion existed have no progress properties.
        chunks_total=p["chunksTotal"] or 0, chunks_done=p["chunksDone"] or 0,
        uploaded_by_key=p.get("uploadedByKey"),
    )


def handoff_props(h: Handoff) -> Props:
    return {
        "id": h.id, "spaceId": h.space_id, "agent": h.agent, "agentKey": h.agent.casefold(),
        "topic": h.topic, "topicKey": h.topic.casefold(), "summary": h.summary,
        "done": list(h.done), "nextSteps": list(h.next_steps),
        "openQuestions": list(h.open_questions), "links": list(h.links),
        "evidence": list(h.evidence),
        "createdAt": utc(h.created_at), "createdBy": h.created_by,
    }


def handoff_from(p: Props) -> Handoff:
    return Handoff(
        id=p["id"], space_id=p["spaceId"], agent=p["agent"], topic=p["topic"],
        summary=p["summary"], done=tuple(p["done"] or ()), next_steps=tuple(p["nextSteps"] or ()),
        open_questions=tuple(p["openQuestions"] or ()), links=tuple(p["links"] or ()),
        created_at=_dt(p["createdAt"]), created_by=p["createdBy"],
        evidence=tuple(p.get("evidence") or ()),
    )
