"""Records of the export file (services/portability/portability.py) that the wire has too: the export is a
file format of its own (`import_records.VERSION`), so they are spelled here and do not follow
later changes to the wire shapes of present/."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memspace.domain.bitemporal import superseded_at, utc, valid_from_of
from memspace.domain.evidence_codec import citation_rows
from memspace.domain.models import Handoff, Memory
from memspace.services.portability.import_guard import provenance_fields


def iso(value: datetime | None) -> str | None:
    """A time as the export writes it (UTC as `Z`, like the wire)."""
    return value.isoformat().replace("+00:00", "Z") if value else None


def handoff_line(handoff: Handoff) -> dict[str, Any]:
    """A handoff line of the export."""
    return {
        "type": "handoff", "id": handoff.id, "agent": handoff.agent, "topic": handoff.topic,
        "summary": handoff.summary, "done": list(handoff.done),
        "nextSteps": list(handoff.next_steps), "openQuestions": list(handoff.open_questions),
        "links": list(handoff.links),
        **({"evidence": list(handoff.evidence)} if handoff.evidence else {}),
        "createdAt": iso(handoff.created_at), "createdBy": handoff.created_by,
    }


def interval_fields(memory: Memory) -> dict[str, Any]:
    """Both intervals of a memory line (docs/time.md): `validFrom`, `validTo`, `recordedAt`
    (createdAt) and `supersededAt` (invalidatedAt of a superseded memory)."""
    return {"validFrom": iso(valid_from_of(memory)),
            "validTo": iso(utc(memory.valid_to)) if memory.valid_to else None,
            "recordedAt": iso(memory.created_at),
            "supersededAt": iso(superseded_at(memory))}


def memory_line(memory: Memory) -> dict[str, Any]:
    """A memory line of the export (active or not, with its history fields)."""
    return {
        "type": "memory", "id": memory.id, "content": memory.content,
        "category": memory.category, "active": memory.active,
        "createdAt": iso(memory.created_at), "createdBy": memory.created_by,
        "documentId": memory.document_id, "origin": memory.origin,
        "invalidatedAt": iso(memory.invalidated_at), "invalidatedBy": memory.invalidated_by,
        "forgetReason": memory.forget_reason, "forgottenBy": memory.forgotten_by,
        "version": memory.version, "speaker": memory.speaker,
        "observedAt": memory.observed_at.isoformat() if memory.observed_at else None,
        "context": memory.context, "follows": memory.follows,
        **({"evidence": citation_rows(memory.evidence),
            "verification": memory.verification} if memory.evidence else {}),
        **provenance_fields(memory),
        "memoryType": memory.type.value, "status": memory.status.value,
        "importance": memory.importance, "canonical": memory.canonical,
        **interval_fields(memory),
        **({"expiresAt": iso(memory.expires_at)} if memory.expires_at else {}),
    }
