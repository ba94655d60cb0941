"""Keeping the conflicts the memories alone do not show (docs/conflicts.md): an UPDATES the
similarity floor refused (kept as a suggested update), a model answer that called two facts
contradictory, an add answered `conflict`. Each is recorded after the write that met it has
committed; a record that fails is logged and the write's answer stands (what was stored is
never undone for it)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from memspace.domain.conflicts import (
    ConflictKind,
    Proposal,
    RecordedConflict,
    conflict_id,
)
from memspace.domain.models import Memory
from memspace.domain.ports import Clock
from memspace.domain.role_ports import ConflictStore
from memspace.services.memories.reconcile import Plan

log = logging.getLogger(__name__)


class ConflictRecorder:
    def __init__(self, conflicts: ConflictStore, clock: Clock) -> None:
        self._conflicts = conflicts
        self._clock = clock

    def written(self, space_id: str, plan: Plan, floor: float) -> None:
        """What a written extraction left for the queue: its suggested updates and the pairs
        the model called contradictory (of the facts that were written)."""
        written = {m.id for m in plan.memories}
        for new, old, similarity in plan.suggested:
            if new.id in written:
                self.suggested(space_id, new, old, similarity, floor)
        for new, old, why in plan.contradicts:
            if new.id in written and old.id not in plan.supersede:
                self.contradiction(space_id, new, old, why)

    def suggested(self, space_id: str, new: Memory, old: Memory, similarity: float,
                  floor: float) -> None:
        """A model said `new` replaces `old`; the floor kept both."""
        why = (f"a model said '{new.id}' replaces '{old.id}', but they look unrelated "
               f"(similarity {similarity:.2f} < {floor}), so both were kept: a suggested update")
        self._keep(space_id, ConflictKind.SUGGESTED_UPDATE, (new.id, old.id), why, new.created_by)

    def contradiction(self, space_id: str, new: Memory, old: Memory, reason: str | None) -> None:
        """A model said `new` contradicts `old` and replaced neither."""
        why = (f"a model said '{new.id}' contradicts '{old.id}' and replaced neither"
               + (f": {reason}" if reason else ""))
        self._keep(space_id, ConflictKind.CONTRADICTION, (new.id, old.id), why, new.created_by)

    def refused(self, space_id: str, existing: Memory, proposed: Memory,
                similarity: float) -> None:
        """An add of `proposed` was answered `conflict` against `existing`; nothing stored."""
        proposal = Proposal(proposed.content, proposed.type, proposed.created_by,
                            proposed.created_at, proposed.content_hash, proposed.category)
        why = (f"a {proposed.type.value} was refused as a conflict with '{existing.id}' "
               f"(similarity {similarity:.2f}) and not stored; it waits here as the proposal")
        self._keep(space_id, ConflictKind.WRITE_CONFLICT, (existing.id,), why,
                   proposed.created_by, proposal)

    def _keep(self, space_id: str, kind: ConflictKind, ids: Sequence[str], why: str, by: str,
              proposal: Proposal | None = None) -> None:
        record = RecordedConflict(
            conflict_id(space_id, kind, tuple(ids), proposal.content_hash if proposal else None),
            space_id, kind, tuple(ids), why, by, self._clock.now(), proposal)
        try:
            self._conflicts.record(record)
        except Exception:  # the write it follows has committed: its answer stands
            log.exception("could not record a %s conflict in space %s", kind.value, space_id)
