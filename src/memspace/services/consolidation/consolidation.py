"""The consolidation pass as a service (docs/consolidation.md): one pass over a space now,
the undo of one, and the passes so far. The pass itself is passes.py; what it decides,
judging.py."""

from __future__ import annotations

import time
from collections.abc import Callable

from memspace.domain.consolidation import (
    CONSOLIDATOR,
    RETIRING,
    ChangeKind,
    PassCost,
    PassRecord,
)
from memspace.domain.errors import Conflict, InvalidInput, NotFound
from memspace.domain.models import Relation, RelationType, Space
from memspace.services.consolidation.pass_types import PassParts, PassReport, UndoReport
from memspace.services.consolidation.passes import LEASE, PassRun
from memspace.services.shared import new_id


class ConsolidationService:
    """Passes over spaces, their undo and their records, as the operator (the CLI, the
    server's schedule): no key names a pass."""

    def __init__(self, parts: PassParts,
                 spent: Callable[[PassReport], None] | None = None) -> None:
        self._parts = parts
        self._store = parts.store
        self._clock = parts.clock
        self._spent = spent  # the metrics' hook, called with every finished report

    @property
    def with_model(self) -> bool:
        return self._parts.extractor is not None

    def space(self, space: str) -> Space:
        """A space by slug or id (the operator's commands name spaces either way)."""
        found = (self._store.directory.get_space_by_slug(space.strip())
                 or self._store.directory.get_space(space.strip()))
        if found is None:
            raise NotFound(f"no space '{space}'; `memspace space list` lists them")
        return found

    def spaces(self) -> list[Space]:
        return self._store.directory.list_spaces()

    # -- a pass -------------------------------------------------------------------------------

    def consolidate(self, space: str, dry_run: bool = False) -> PassReport:
        """One pass over the space: what changed since the last pass and its closest memories."""
        target = self.space(space)
        started = time.perf_counter()
        now = self._clock.now()
        pass_id = "cp_" + new_id()[:20]
        lease = self._store.consolidation
        if not dry_run and not lease.take_lease(target.id, pass_id, now, now + LEASE):
            return PassReport(None, target, dry_run, (), PassCost(), busy=True)
        try:
            report = PassRun(self._parts, target, pass_id, now, dry_run, started).go()
        finally:
            if not dry_run:
                lease.release_lease(target.id, pass_id)
        if self._spent is not None:
            self._spent(report)
        return report

    def undo(self, space: str, pass_id: str, reason: str | None = None,
             by: str = CONSOLIDATOR) -> UndoReport:
        """Reverse one pass: what it retired is current again (unless it changed since), the
        links it added are removed, and the undo is in each memory's history."""
        target = self.space(space)
        wanted = (pass_id or "").strip()
        record = self._store.consolidation.get_pass(target.id, wanted)
        if record is None:
            raise NotFound(f"no consolidation pass '{wanted}' in this space; `memspace "
                           f"consolidate passes --space {target.slug}` lists them")
        if record.undone_at is not None:
            raise Conflict(f"pass '{wanted}' was undone already ({record.undone_at.isoformat()} "
                           f"by {record.undone_by})")
        # An expiry is the memory's own expiresAt, not a judgement of the pass: it stays.
        restore = {old: left for c in record.changes
                   if c.kind in RETIRING and c.kind is not ChangeKind.EXPIRY
                   for old, left in zip(c.retired, c.left_at, strict=True)}
        unlink = [c.relation for c in record.changes
                  if c.kind is ChangeKind.LINK and c.relation is not None]
        unlink += [Relation(c.kept, old, RelationType.UPDATES, record.started_at, CONSOLIDATOR)
                   for c in record.changes if c.kind in RETIRING and c.kept is not None
                   for old in c.retired]
        why = " ".join((reason or "").split())[:500] or "undone by the operator"
        at = self._clock.now()
        restored = self._store.consolidation.undo(target.id, wanted, restore, unlink, by, at,
                                                  f"undo of consolidation pass {wanted}: {why}")
        skipped = tuple(m for m in restore if m not in restored)
        return UndoReport(target, wanted, tuple(restored), skipped, len(unlink), by, at)

    def passes(self, space: str, limit: int = 20) -> tuple[Space, list[PassRecord]]:
        target = self.space(space)
        if not 1 <= limit <= 200:
            raise InvalidInput("limit is 1-200, e.g. --limit 20")
        return target, self._store.consolidation.list_passes(target.id, limit)
