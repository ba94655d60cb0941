"""The conflict queue in an export (services/portability/portability.py, docs/conflicts.md): one
`{"type": "conflict", …}` line per open conflict kept as a record (a suggested update, a model's
contradiction, a refused write with its proposal). Disputed memories and two current heads
travel as what they are (a memory's status, an UPDATES between current memories) and are found
again on the other side. An export made before these lines imports as before."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from memspace.domain.conflicts import (
    ConflictKind,
    Proposal,
    RecordedConflict,
    conflict_id,
)
from memspace.domain.errors import InvalidInput
from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory
from memspace.domain.role_ports import ConflictStore
from memspace.services.portability.export_records import iso

MAX_EXPORTED = 10_000


def conflict_lines(conflicts: ConflictStore, space_id: str,
                   memories: Iterable[Memory]) -> Iterator[dict[str, Any]]:
    """The space's open recorded conflicts, oldest first."""
    active = {m.id for m in memories if m.active}
    kept = [c for c in conflicts.open_recorded(space_id, MAX_EXPORTED)
            if all(i in active for i in c.memory_ids)]
    for c in sorted(kept, key=lambda c: (c.at, c.id)):
        p = c.proposal
        yield {"type": "conflict", "id": c.id, "kind": c.kind.value,
               "memories": list(c.memory_ids), "why": c.why, "recordedBy": c.by,
               "recordedAt": iso(c.at),
               "proposal": None if p is None else {
                   "content": p.content, "memoryType": p.type.value, "category": p.category,
                   "createdBy": p.by, "createdAt": iso(p.at), "contentHash": p.content_hash}}


def restore_conflicts(conflicts: ConflictStore, space_id: str, records: Iterable[dict[str, Any]],
                      ident: Callable[[Any], Any]) -> int:
    """Record the export's conflicts in `space_id`, their memories' ids mapped by `ident`
    (ids are made again for the target space); how many were new."""
    restored = 0
    for r in records:
        try:
            kind = ConflictKind(r["kind"])
            ids = tuple(str(ident(i)) for i in r["memories"])
            at = datetime.fromisoformat(r["recordedAt"])
            p = r.get("proposal")
            proposal = None if not p else Proposal(
                p["content"], MemoryType(p["memoryType"]), p["createdBy"],
                datetime.fromisoformat(p["createdAt"]), p["contentHash"], p.get("category"))
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidInput(f"a conflict line of the export cannot be read: {exc}") from exc
        record = RecordedConflict(
            conflict_id(space_id, kind, ids, proposal.content_hash if proposal else None),
            space_id, kind, ids, str(r.get("why") or ""), str(r.get("recordedBy") or ""), at,
            proposal)
        restored += conflicts.record(record)
    return restored
