"""One consolidation pass over one space (docs/consolidation.md), and its undo.

A pass holds the space's lease (one pass per space across every server on the store), reads
what changed since the cursor the last pass left, groups each changed memory with its closest
older ones, decides by rule (services/consolidation/judging.py; with a model, one extraction
call per group that needs a judgement), and writes each group's change in one transaction
that checks every memory's version: a memory changed after the pass read it is left alone. The
record of the pass is saved after every change, so a pass killed midway keeps what it did and
the next pass carries on from the same cursor."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from memspace.domain.conflicts import ConflictKind, RecordedConflict, Settlement, conflict_id
from memspace.domain.consolidation import (
    CONSOLIDATOR,
    RETIRING,
    ChangeKind,
    PassChange,
    PassCost,
    PassRecord,
)
from memspace.domain.embedder import Embedder
from memspace.domain.errors import (
    Conflict,
    ExtractionFailed,
    InvalidInput,
    NotFound,
    StaleVersion,
)
from memspace.domain.extraction import Candidate, Comparison, FactComparer, FactExtractor
from memspace.domain.graph_port import (
    WithConflicts,
    WithConsolidation,
    WithDirectory,
    WithMarks,
    WithReads,
    WithSearch,
)
from memspace.domain.models import (
    Memory,
    MemoryFilter,
    ProvenanceKind,
    Relation,
    RelationType,
    Space,
    Usage,
)
from memspace.domain.ports import ChangeAfter, Clock
from memspace.services.consolidation.judging import (
    Judged,
    Near,
    Verdict,
    confirm,
    exact,
    keeper,
    with_model,
    without_model,
)
from memspace.services.shared import new_id

log = logging.getLogger(__name__)

# How long a pass holds its space's lease before it must renew it (it renews between groups):
# a pass whose server died is taken over after this.
LEASE = timedelta(minutes=2)
# Memories read per pass at most; the rest is the next pass's (its cursor stops before them).
WINDOW = 2_000
# The older memories a changed one is grouped with: its closest, above the embedding model's
# UPDATES floor (Calibration.update_floor: below it two facts are not about the same thing).
NEIGHBOURS = 5
# How close two memories stating the same values must be for a model's "no relation" to fold
# them: "the same fact" rather than "about the same thing". Between the floor and 1, set as a
# share of the distance: chosen on bench/data/consolidation_tune.jsonl (docs/consolidation.md).
SAME_SHARE = 0.5
# An id after every id: the change feed resumes strictly after a stamp with it.
_AFTER_EVERY_ID = chr(0x10FFFF) * 4
# Passes undone lately whose pairs a pass does not make again (people decided them).
UNDONE_LOOKBACK = 100


class ConsolidationPorts(WithDirectory, WithReads, WithSearch, WithConflicts, WithMarks,
                         WithConsolidation, Protocol):
    """The store roles a pass reads and writes."""


# Extracts a flat memory's facts with the model now (services/memories: the same rules as an
# add): what the model cost, or None when there was nothing to do (it has a job already).
ExtractNow = Callable[[Memory], Usage | None]


@dataclass(frozen=True)
class PassReport:
    """What `consolidate` did (or, dry, would do): its id (None for a dry run or when another
    pass held the space), its changes and what it cost."""

    pass_id: str | None
    space: Space
    dry_run: bool
    changes: tuple[PassChange, ...]
    cost: PassCost
    busy: bool = False  # another pass holds the space's lease: nothing was done

    def count(self, kind: ChangeKind) -> int:
        return sum(1 for c in self.changes if c.kind is kind)


@dataclass(frozen=True)
class UndoReport:
    space: Space
    pass_id: str
    restored: tuple[str, ...]
    skipped: tuple[str, ...]  # changed since the pass: left as they are
    unlinked: int
    by: str
    at: datetime


class ConsolidationService:
    def __init__(self, store: ConsolidationPorts, embedder: Embedder, clock: Clock,
                 extractor: FactExtractor | None = None,
                 extract_now: ExtractNow | None = None,
                 max_calls: int = 50,
                 spent: Callable[[PassReport], None] | None = None,
                 comparer: FactComparer | None = None) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock
        self._extractor = extractor
        self._extract_now = extract_now
        self._comparer = comparer  # the model's second look before a retirement
        self._max_calls = max_calls  # model calls one pass may make (MEMSPACE_CONSOLIDATE_MAX_CALLS)
        self._spent = spent  # the metrics' hook, called with every finished report

    @property
    def with_model(self) -> bool:
        return self._extractor is not None

    def space(self, space: str) -> Space:
        """A space by slug or id (the operator's commands name spaces either way)."""
        found = (self._store.directory.get_space_by_slug(space.strip())
                 or self._store.directory.get_space(space.strip()))
        if found is None:
            raise NotFound(f"no space '{space}'; `memspace spaces` lists them")
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
        run = _Run(self, target, pass_id, now, dry_run, started)
        try:
            return run.go()
        finally:
            if not dry_run:
                lease.release_lease(target.id, pass_id)

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


class _Run:
    """One pass in progress: its window, its record so far and its budget."""

    def __init__(self, service: ConsolidationService, space: Space, pass_id: str,
                 now: datetime, dry_run: bool, started: float) -> None:
        self.s = service
        self.store = service._store
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
        self.since = 0
        self.stamps: dict[str, int] = {}  # each memory of the window: the write that changed it
        self._undone: set[frozenset[str]] | None = None

    def go(self) -> PassReport:
        self.since = since = self.store.consolidation.cursor(self.space.id)
        until = self.store.directory.space_stats(self.space.id).version
        window = self._window(since)
        self.stamps = {m.id: stamp for m, stamp in window}
        self.read = len(window)
        if window and len(window) >= WINDOW:
            until = window[-1][1] - 1  # the memories of the last stamp are read again next time
        self._expire()
        anchors = [m for m, _ in window if m.active]
        self._extract_flat(anchors)
        stop_at = self._group_all(anchors)
        if stop_at is not None:
            until = min(until, stop_at - 1)
        return self._finish(since, max(since, until))

    # -- reading --------------------------------------------------------------------------

    def _window(self, since: int) -> list[tuple[Memory, int]]:
        """The memories changed since the cursor, oldest change first, each once."""
        out: list[tuple[Memory, int]] = []
        after = ChangeAfter(since, _AFTER_EVERY_ID)  # strictly after the cursor's write
        while len(out) < WINDOW:
            page = self.store.reads.list_changes(MemoryFilter(self.space.id),
                                                 min(500, WINDOW - len(out)), after=after)
            if not page:
                break
            out += [(c.memory, c.stamp) for c in page]
            after = ChangeAfter(page[-1].stamp, page[-1].memory.id)
        return out

    def _neighbours(self, anchors: Sequence[Memory]) -> dict[str, list[Near]]:
        """Each anchor's closest other active memories of the space above the floor, older
        than the anchor (the newer side of a pair is the one whose relations are asked)."""
        floor = self.s._embedder.calibration.update_floor
        vectors = self.s._embedder.embed([m.content for m in anchors]) if anchors else []
        found: dict[str, list[Near]] = {}
        for memory, vector in zip(anchors, vectors, strict=True):
            hits = self.store.search.vector_search(MemoryFilter(self.space.id), vector,
                                                   NEIGHBOURS + 1)
            found[memory.id] = [Near(h.memory, h.score) for h in hits
                                if h.memory.id != memory.id and h.memory.active
                                and h.score >= floor and _older(h.memory, memory)]
        return found

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
        if self.s._extract_now is None or self.dry_run:
            return
        for memory in anchors:
            if not _flat(memory) or self._out_of_calls():
                continue
            try:
                spent = self.s._extract_now(memory)
            except ExtractionFailed as exc:
                spent = exc.usage
            if spent is None:
                continue
            self.usage = self.usage + spent
            self._record(PassChange(ChangeKind.EXTRACTION, "saved while no model was configured",
                                    kept=memory.id))

    def _group_all(self, anchors: Sequence[Memory]) -> int | None:
        """Judge each anchor's group, newest anchor first: first the same texts (they need no
        judgement, and folding them first leaves fewer pairs to judge), then the rest. What
        goes to the queue is written last, without the pairs a fold of this pass settled.
        Returns the stamp to stop the cursor before when the model budget ran out (None: every
        group was judged)."""
        near = self._neighbours(anchors)
        newest_first = sorted(anchors, key=lambda m: (m.created_at, m.id), reverse=True)
        for memory in newest_first:
            same = [n for n in near.get(memory.id, []) if exact(memory, n)]
            if memory.id not in self.done and same:
                self._apply(without_model(memory, self._undecided(memory, same)))
        stop: int | None = None
        for memory in newest_first:
            if memory.id in self.done:
                continue
            group = [n for n in near.get(memory.id, []) if n.memory.id not in self.done]
            group = self._undecided(memory, group)
            if not group:
                continue
            if self.s._extractor is not None and self._out_of_calls():
                stop = self.stamps[memory.id]
                break
            self.groups += 1
            self._renew()
            self._apply(self._judge(memory, group))
        for new, old, kind, why in self.queued:
            if new.id not in self.done and old.id not in self.done:
                self._queue(new, old, kind, why)
        return stop

    def _undecided(self, newest: Memory, group: list[Near]) -> list[Near]:
        """Leave out pairs a person, a queue entry or an undone pass already decided."""
        ids = {n.memory.id: [conflict_id(self.space.id, kind, (newest.id, n.memory.id))
                             for kind in (ConflictKind.RESTATEMENT, ConflictKind.REPLACEMENT,
                                          ConflictKind.CONTRADICTION,
                                          ConflictKind.SUGGESTED_UPDATE)]
               for n in group}
        decided = self.store.consolidation.decided(self.space.id,
                                                   [i for v in ids.values() for i in v])
        undone = self._undone_pairs()
        return [n for n in group if not decided.intersection(ids[n.memory.id])
                and frozenset((newest.id, n.memory.id)) not in undone]

    def _undone_pairs(self) -> set[frozenset[str]]:
        if self._undone is None:
            self._undone = {frozenset((c.kept, old))
                            for r in self.store.consolidation.list_passes(self.space.id,
                                                                          UNDONE_LOOKBACK)
                            if r.undone_at is not None for c in r.changes
                            if c.kept is not None for old in (*c.retired,
                            *((c.relation.target_id,) if c.relation else ()))}
        return self._undone

    def _judge(self, newest: Memory, group: list[Near]) -> Verdict:
        if self.s._extractor is None:
            return without_model(newest, group)
        floor = self.s._embedder.calibration.update_floor
        same_floor = floor + (1.0 - floor) * SAME_SHARE
        asked = [i for i, n in enumerate(group) if not exact(newest, n)]
        if not asked:
            return with_model(newest, group, asked, Judged({}, {}), floor, same_floor)
        offered = [Candidate(number, group[i].memory.content, group[i].memory.category,
                             group[i].memory.created_at) for number, i in enumerate(asked)]
        try:
            extraction = self.s._extractor.extract(newest.content, offered, newest.speaker,
                                                   newest.observed_at)
        except ExtractionFailed as exc:
            self.usage = self.usage + exc.usage
            log.info("consolidation %s: the model failed on a group (%s); left for the next "
                     "pass", self.pass_id, exc.message)
            return Verdict(newest)
        self.usage = self.usage + extraction.usage
        verdict = with_model(newest, group, asked, Judged.of(extraction), floor, same_floor)
        return keeper(self._second_look(verdict, group))

    def _second_look(self, verdict: Verdict, group: list[Near]) -> Verdict:
        """Ask the model once more about each memory the group would retire (the same text
        needs no look); without a comparer the first answer stands."""
        comparer = self.s._comparer
        plain = {n.memory.id for n in group if exact(verdict.keep, n)}
        checked = [m for m in verdict.retired if m.id not in plain]
        if comparer is None or not checked:
            return verdict
        offered = [Candidate(i, m.content, m.category, m.created_at) for i, m in enumerate(checked)]
        try:
            found, spent = comparer.compare(verdict.keep.content, offered)
        except ExtractionFailed as exc:
            self.usage = self.usage + exc.usage
            found, spent = [], Usage()
        self.usage = self.usage + spent
        by_id: dict[str, Comparison] = {checked[c.number].id: c for c in found
                                        if 0 <= c.number < len(checked)}
        return confirm(verdict, checked, by_id)

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
                                    valid_to=keep.valid_from or keep.observed_at
                                    or keep.created_at)
            try:
                self.store.conflicts.settle(settlement)
            except (StaleVersion, NotFound, Conflict):
                log.info("consolidation %s: a memory of a group changed after it was read; "
                         "left alone", self.pass_id)
                return
        self.done.update(m.id for m in olds)
        self._record(change)

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

    def _record_now(self, finished: datetime | None, until: int | None = None) -> PassRecord:
        return PassRecord(self.pass_id, self.space.id, self.now, self.since,
                          until if until is not None else self.since, tuple(self.changes),
                          self._cost(), finished)

    def _renew(self) -> None:
        if not self.dry_run:
            now = self.s._clock.now()
            if not self.store.consolidation.take_lease(self.space.id, self.pass_id, now,
                                                       now + LEASE):
                raise Conflict("another pass took this space's lease (this one ran past it)")

    def _out_of_calls(self) -> bool:
        return self.usage.llm_calls >= self.s._max_calls

    def _cost(self) -> PassCost:
        return PassCost(self.read, self.groups, self.usage.llm_calls, self.usage.prompt_tokens,
                        self.usage.completion_tokens,
                        round(time.perf_counter() - self.started, 3))

    def _finish(self, since: int, until: int) -> PassReport:
        cost = self._cost()
        if not self.dry_run:
            self.store.consolidation.save_pass(self._record_now(self.s._clock.now(), until))
        report = PassReport(None if self.dry_run else self.pass_id, self.space, self.dry_run,
                            tuple(self.changes), cost)
        if self.s._spent is not None:
            self.s._spent(report)
        return report


def _older(a: Memory, b: Memory) -> bool:
    return (a.created_at, a.id) < (b.created_at, b.id)


def _flat(memory: Memory) -> bool:
    """Saved by an agent or a person as it was, not a correction (those are written as given,
    on purpose) and not a document's chunk."""
    kind = memory.provenance.kind if memory.provenance is not None else None
    return (kind in (ProvenanceKind.AGENT, ProvenanceKind.HUMAN) and memory.document_id is None
            and memory.version == 1)
