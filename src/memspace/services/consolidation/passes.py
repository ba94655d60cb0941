"""One consolidation pass in progress over one space (docs/consolidation.md).

A pass reads what changed since the cursor the last pass left, groups each changed memory with
its closest older ones, decides by rule (judging.py; with a model, one extraction call per
group that needs a judgement and a second look before a retirement), and writes each group's
change in one transaction that checks every memory's version: a memory changed after the pass
read it is left alone. The record of the pass is saved after every change, so a pass killed
midway keeps what it did and the next pass carries on from the same cursor."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from memspace.domain.conflicts import ConflictKind, RecordedConflict, Settlement, conflict_id
from memspace.domain.consolidation import (
    CONSOLIDATOR,
    ChangeKind,
    PassChange,
    PassCost,
    PassCursor,
    PassRecord,
)
from memspace.domain.errors import Conflict, ExtractionFailed, NotFound, StaleVersion
from memspace.domain.models import Memory, ProvenanceKind, Relation, Space, Usage
from memspace.services.consolidation.carry import carried_links
from memspace.services.consolidation.judging import (
    Near,
    Verdict,
    exact,
    without_model,
)
from memspace.services.consolidation.looks import judge
from memspace.services.consolidation.pass_types import PassParts, PassReport
from memspace.services.consolidation.window import (
    WINDOW,
    changed_since,
    neighbours,
    undecided,
    undone_pairs,
)

log = logging.getLogger(__name__)

# How long a pass holds its space's lease before it must renew it (it renews between groups):
# a pass whose server died is taken over after this.
LEASE = timedelta(minutes=2)



class PassRun:
    """One pass in progress: its window, its record so far and its budget."""

    def __init__(self, parts: PassParts, space: Space, pass_id: str, now: datetime,
                 dry_run: bool, started: float) -> None:
        self.parts = parts
        self.store = parts.store
        self.space = space
        self.pass_id = pass_id
        self.now = now
        self.dry_run = dry_run
        self.started = started
        self.changes: list[PassChange] = []
        self.usage = Usage()
        self.read = 0
        self.groups = 0
        self.done: set[str] = set()  # memories this pass retired
        self.queued: list[tuple[Memory, Memory, ConflictKind, str]] = []  # written last
        self.since = PassCursor()
        self.window: list[tuple[Memory, int]] = []  # in the feed's order
        self.stamps: dict[str, int] = {}  # each memory of the window: the write that changed it
        self.stop: int | None = None  # the window's first memory left for the next pass
        self._undone: set[frozenset[str]] | None = None

    def go(self) -> PassReport:
        self.since = self.store.consolidation.cursor(self.space.id)
        until = PassCursor(self.store.directory.space_stats(self.space.id).version)
        self.window = window = changed_since(self.store, self.space.id, self.since)
        self.stamps = {m.id: stamp for m, stamp in window}
        self.read = len(window)
        if window and len(window) >= WINDOW:
            until = PassCursor(window[-1][1], window[-1][0].id)  # the next window starts after
        self._expire()
        anchors = [m for m, _ in window if m.active]
        self._extract_flat(anchors)
        self._group_all(anchors)
        if self.stop is not None:
            until = self.since if self.stop == 0 else PassCursor(window[self.stop - 1][1],
                                                                 window[self.stop - 1][0].id)
        return self._finish(until)

    # -- the steps ------------------------------------------------------------------------

    def _expire(self) -> None:
        """Memories past their expiresAt leave the current set, as of their expiry."""
        if self.dry_run:
            return
        gone = self.store.marks.expire_due(self.space.id, self.now, CONSOLIDATOR,
                                           f"expired (consolidation pass {self.pass_id})", WINDOW)
        for memory in gone:
            self._record(PassChange(ChangeKind.EXPIRY, "its expiresAt passed",
                                    retired=(memory.id,), left_at=(memory.version,)))

    def _extract_flat(self, anchors: Sequence[Memory]) -> None:
        """Memories saved flat (no model then) go through the model once one is configured."""
        if self.parts.extract_now is None or self.dry_run:
            return
        for memory in anchors:
            if not _flat(memory):
                continue
            if self._out_of_calls():
                self._stop_at(memory)
                break
            try:
                spent = self.parts.extract_now(memory)
            except ExtractionFailed as exc:
                spent = exc.usage
            if spent is None:
                continue
            self.usage = self.usage + spent
            now = self.store.reads.get_memory(self.space.id, memory.id)
            if now is None or not now.active:
                self.done.add(memory.id)  # replaced by its facts: they are the next pass's
            self._record(PassChange(ChangeKind.EXTRACTION, "saved while no model was configured",
                                    kept=memory.id))

    def _group_all(self, anchors: Sequence[Memory]) -> None:
        """Judge each anchor's group: first the same texts, newest anchor first (they need no
        judgement, and folding them first leaves fewer pairs to judge), then the rest in the
        order the changes came, so a chain is read as it happened: the first memory to state
        a new value replaces the old one before a later restatement of the new value is folded
        into it (newest first, the fold came first and the replacement it carried was lost).
        What goes to the queue is written last, without the pairs a fold of this pass settled.
        When the model budget runs out, the pass stops before the first group left unjudged."""
        near = neighbours(self.store, self.parts.embedder, self.space.id, anchors)
        newest_first = sorted(anchors, key=lambda m: (m.created_at, m.id), reverse=True)
        for memory in newest_first:
            same = [n for n in near.get(memory.id, []) if exact(memory, n)]
            if memory.id not in self.done and same:
                same = undecided(self.store, self.space.id, memory, same, self._undone_pairs())
                self._apply(without_model(memory, same))
        in_order = sorted(anchors, key=lambda m: self.stamps[m.id])  # as the changes came
        for memory in in_order:
            if memory.id in self.done:
                continue
            group = [n for n in near.get(memory.id, []) if n.memory.id not in self.done]
            group = undecided(self.store, self.space.id, memory, group, self._undone_pairs())
            if not group:
                continue
            if self.parts.extractor is not None and self._out_of_calls():
                self._stop_at(memory)
                break
            self.groups += 1
            self._renew()
            self._apply(self._judge(memory, group))
        for new, old, kind, why in self.queued:
            if new.id not in self.done and old.id not in self.done:
                self._queue(new, old, kind, why)

    def _stop_at(self, memory: Memory) -> None:
        """Leave `memory` and what the feed lists after it for the next pass."""
        at = next(i for i, (m, _) in enumerate(self.window) if m.id == memory.id)
        self.stop = at if self.stop is None else min(self.stop, at)

    def _undone_pairs(self) -> set[frozenset[str]]:
        if self._undone is None:
            self._undone = undone_pairs(self.store, self.space.id)
        return self._undone

    def _judge(self, newest: Memory, group: list[Near]) -> Verdict:
        verdict, spent = judge(self.parts, self.pass_id, newest, group)
        self.usage = self.usage + spent
        return verdict

    # -- writing --------------------------------------------------------------------------

    def _apply(self, verdict: Verdict) -> None:
        for source, target, kind, why in verdict.links:
            # The model's reason stays on the edge, as an add's does; the pass's own words say
            # what it did.
            relation = Relation(source.id, target.id, kind, self.now, CONSOLIDATOR,
                                f"{why} (consolidation pass {self.pass_id})")
            written = [relation] if self.dry_run else self.store.consolidation.link(
                self.space.id, [relation])
            for r in written:
                self._record(PassChange(ChangeKind.LINK, f"the model relates them "
                                        f"({kind.value.lower()})", kept=source.id, relation=r))
        if verdict.retired:
            self._retire(verdict)
        self.queued += [(new, old, ConflictKind(kind), why) for new, old, kind, why in verdict.queue]


    def _retire(self, verdict: Verdict) -> None:
        keep, olds = verdict.keep, verdict.retired
        replaced = bool(verdict.replaced)
        kind = ConflictKind.REPLACEMENT if replaced else ConflictKind.RESTATEMENT
        cid = conflict_id(self.space.id, kind, (keep.id, *(m.id for m in olds)))
        why = "; ".join(f"'{m.id}': {verdict.retire[m.id]}" for m in olds)
        change = PassChange(ChangeKind(kind.value), why, kept=keep.id,
                            retired=tuple(m.id for m in olds),
                            left_at=tuple(m.version + 1 for m in olds), conflict_id=cid)
        if not self.dry_run:
            record = RecordedConflict(cid, self.space.id, kind, (keep.id, *(m.id for m in olds)),
                                      why, CONSOLIDATOR, self.now)
            settlement = Settlement(record, keep.id, tuple(m.id for m in olds),
                                    f"consolidation pass {self.pass_id}: {why}"[:2000],
                                    CONSOLIDATOR, self.now,
                                    {m.id: m.version for m in (keep, *olds)},
                                    valid_to=max(_start(m) for m in (keep, *olds)))
            try:
                self.store.conflicts.settle(settlement)
            except (StaleVersion, NotFound, Conflict):
                log.info("consolidation %s: a memory of a group changed after it was read; "
                         "left alone", self.pass_id)
                return
        self.done.update(m.id for m in olds)
        self._record(change)
        if not replaced:
            self._carry(keep, olds)

    def _carry(self, keep: Memory, olds: Sequence[Memory]) -> None:
        relations = carried_links(self.store, self.space.id, keep, olds, self.now, self.pass_id)
        written = relations if self.dry_run or not relations else \
            self.store.consolidation.link(self.space.id, relations)
        for r in written:
            self._record(PassChange(ChangeKind.LINK, "carried over from a memory folded into it",
                                    kept=keep.id, relation=r))

    def _queue(self, new: Memory, old: Memory, kind: ConflictKind, why: str) -> None:
        cid = conflict_id(self.space.id, kind, (new.id, old.id))
        if not self.dry_run:
            recorded = self.store.conflicts.record(RecordedConflict(
                cid, self.space.id, kind, (new.id, old.id), why, CONSOLIDATOR, self.now))
            if not recorded:
                return
        self._record(PassChange(ChangeKind.QUEUED, why, kept=new.id, conflict_id=cid,
                                sides=(new.id, old.id)))

    def _record(self, change: PassChange) -> None:
        self.changes.append(change)
        if not self.dry_run:
            self.store.consolidation.save_pass(self._record_now(None))

    def _record_now(self, finished: datetime | None, until: PassCursor | None = None
                    ) -> PassRecord:
        end = until if until is not None else self.since
        return PassRecord(self.pass_id, self.space.id, self.now, self.since.version,
                          end.version, tuple(self.changes), self._cost(), finished,
                          since_after=self.since.after, until_after=end.after)

    def _renew(self) -> None:
        if not self.dry_run:
            now = self.parts.clock.now()
            if not self.store.consolidation.take_lease(self.space.id, self.pass_id, now,
                                                       now + LEASE):
                raise Conflict("another pass took this space's lease (this one ran past it)")

    def _out_of_calls(self) -> bool:
        return self.usage.llm_calls >= self.parts.max_calls

    def _cost(self) -> PassCost:
        return PassCost(self.read, self.groups, self.usage.llm_calls, self.usage.prompt_tokens,
                        self.usage.completion_tokens,
                        round(time.perf_counter() - self.started, 3))

    def _finish(self, until: PassCursor) -> PassReport:
        cost = self._cost()
        if not self.dry_run:
            self.store.consolidation.save_pass(self._record_now(self.parts.clock.now(), until))
        return PassReport(None if self.dry_run else self.pass_id, self.space, self.dry_run,
                          tuple(self.changes), cost)


def _flat(memory: Memory) -> bool:
    """Saved by an agent or a person as it was, not a correction (those are written as given,
    on purpose) and not a document's chunk."""
    kind = memory.provenance.kind if memory.provenance is not None else None
    return (kind in (ProvenanceKind.AGENT, ProvenanceKind.HUMAN) and memory.document_id is None
            and memory.version == 1)


def _start(memory: Memory) -> datetime:
    """When a memory began to hold. The retired ones stop holding when the latest of the group
    began: the kept one when it is the newest (a replacement, most restatements), or the newest
    restatement folded into an older, more complete one, which held all along."""
    return memory.valid_from or memory.observed_at or memory.created_at
