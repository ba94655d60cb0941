"""Reading the export file back (services/portability/portability.py): its lines checked and parsed, and
a memory line turned into the Memory it restores."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from memspace.domain.errors import InvalidInput
from memspace.domain.evidence import Verification
from memspace.domain.evidence_codec import citations_of
from memspace.domain.lifecycle import DEFAULT_IMPORTANCE, MemoryStatus, MemoryType, status_today
from memspace.domain.models import Memory
from memspace.domain.text import content_hash
from memspace.services.portability.import_guard import imported
from memspace.services.security import suspicious_reason

FORMAT = "memspace-export"
VERSION = 1


def time_of(value: Any) -> datetime | None:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None


def parse_export(lines: Iterable[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            kind = record["type"]
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"line {number} is not a memspace export record: {exc}") from exc
        if number == 1 and (kind != "header" or record.get("format") != FORMAT):
            raise InvalidInput("this is not a memspace export (`memspace export` writes one)")
        if kind == "header" and record.get("version") != VERSION:
            raise InvalidInput(f"export version {record.get('version')} is not supported "
                               f"(this memspace reads version {VERSION})")
        records.append(record)
    if not records:
        raise InvalidInput("the export is empty")
    return records


def memory_of(space_id: str, r: dict[str, Any], ident: Any) -> Memory:
    return Memory(
        id=ident(r["id"]), space_id=space_id, content=r["content"], category=r["category"],
        embedding=None, active=bool(r["active"]),
        created_at=time_of(r["createdAt"]) or datetime.min, created_by=r["createdBy"],
        content_hash=content_hash(r["content"]), document_id=ident(r.get("documentId")),
        invalidated_at=time_of(r.get("invalidatedAt")), invalidated_by=ident(r.get("invalidatedBy")),
        forget_reason=r.get("forgetReason"), forgotten_by=r.get("forgottenBy"),
        origin=r.get("origin"), version=int(r.get("version") or 1),
        speaker=r.get("speaker"),
        observed_at=datetime.fromisoformat(r["observedAt"]) if r.get("observedAt") else None,
        context=r.get("context"), follows=ident(r.get("follows")),
        # Repositories do not travel with a space: its citations are checked again by the
        # next verify where they land (`unverified` until then).
        evidence=tuple(replace(c, state=Verification.UNVERIFIED) if c.kind == "file" else c
                       for c in citations_of(r.get("evidence") or [])),
        verification=("unverified" if any(c.get("k") == "file" for c in r.get("evidence") or [])
                      else r.get("verification")),
        provenance=imported(r.get("provenance")), suspicious=suspicious_reason(r["content"]),
        # An export made before types and statuses has neither: a note, in the status its
        # state means today (as migration 14 gave the stored ones).
        type=MemoryType(r.get("memoryType") or "note"),
        status=MemoryStatus(r.get("status") or status_today(
            bool(r["active"]), r.get("invalidatedBy"), r.get("forgetReason"))),
        importance=int(r.get("importance") or DEFAULT_IMPORTANCE),
        canonical=bool(r.get("canonical")),
        valid_from=time_of(r.get("validFrom")), valid_to=time_of(r.get("validTo")),
        expires_at=time_of(r.get("expiresAt")),
    )
