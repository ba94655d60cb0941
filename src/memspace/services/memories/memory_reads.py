"""The read side of memories (docs/contract.md): one memory with its neighbourhood, the newest-first
listing, the change feed, and the preview of a correction (checked, never written)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.models import Document, Memory, MemoryFilter, Neighbour, Relation
from memspace.domain.notes import NoteJob
from memspace.domain.ports import Change, ChangeAfter, Clock, PageAfter
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.documents import document_titles
from memspace.services.lifecycle import statuses_of, types_of
from memspace.services.memories.extraction_jobs import NoteExtraction
from memspace.services.memories.memory_parts import CorrectionCheck
from memspace.services.memories.memory_rules import Limits, ReadPorts, category_of, memory_in
from memspace.services.shared import (
    KnownView,
    Page,
    Period,
    clamp_limit,
    decode_change_cursor,
    decode_cursor,
    encode_change_cursor,
    encode_cursor,
    fingerprint,
    memory_id_of,
    memory_ids,
    past_record,
    period_of,
    short_ids,
    time_slice,
    timeline,
    utc_time,
)

MAX_BATCH = 50  # memories getMemories reads in one call
# Rows read at a time when a status filter must be judged on each record as it stood then.
STATUS_SCAN_PAGE = 200


@dataclass(frozen=True)
class MemoryDetail:
    """One memory with its history: its relations, its neighbourhood and its source document."""

    space: str  # slug
    memory: Memory
    relations: tuple[Relation, ...]
    related: tuple[Neighbour, ...]  # up to two links away
    source: Document | None  # the document it came from
    titles: Mapping[str, str]  # document id -> title, for it and its neighbours
    note: NoteJob | None = None  # how its extraction stands, when saved without waiting
    # Every version of its fact, oldest first, with both intervals (docs/time.md).
    timeline: tuple[Period, ...] = ()
    at: TimeSlice | None = None  # read as the record stood at its knownAt; None: today
    # Each memory id it names -> its short id (services/shared/id_prefixes.py).
    short: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CorrectionPreview:
    """What a correction would write, checked, unsaved: a new memory that UPDATES `replaces`."""

    space: str  # slug
    content: str
    category: str
    replaces: Memory
    reason: str


class MemoryReads:
    """get, get_many, list, changes and preview_correction: nothing here writes. `notes` tells
    how a note saved without waiting stands (None without a model); `marks` are the status
    marks a read at knownAt replays."""

    def __init__(self, store: ReadPorts, access: AccessService, clock: Clock, limits: Limits,
                 correction: CorrectionCheck, notes: NoteExtraction | None = None,
                 marks: LifecycleStore | None = None) -> None:
        self._store = store
        # A read at knownAt shows records as they stood then.
        self._view = KnownView(marks, notes.states if notes is not None else None)
        self._access = access
        self._clock = clock
        self._limits = limits
        self._correction = correction
        self._notes = notes

    def get(self, principal: Principal, memory_id: str, space: str | None = None,
            known_at: str | datetime | None = None) -> MemoryDetail:
        """One memory with its direct relations, its neighbourhood (the history chain) and the
        document it came from, if any. With `known_at`, all of it as the record stood then
        (docs/time.md): a memory recorded later, or forgotten, is not found."""
        target = self._access.resolve(principal, space)
        at = time_slice(None, known_at, self._clock)
        memory = self._known(target.space.id, memory_in(self._store.reads, target.space.id,
                                                        memory_id), at)
        relations = self._store.relations.relations_of(target.space.id, memory.id)
        when = at.known_at if at is not None else None
        near = self._view.neighbours(target.space.id, self._store.relations.neighbours(
            target.space.id, [memory.id], hops=2, per_origin=20, known_at=when), at)
        if at is not None:
            ends = {r.source_id for r in relations} | {r.target_id for r in relations}
            held = self._view.memories(target.space.id, self._store.reads.get_memories(
                target.space.id, sorted(ends)), at)
            relations = self._view.relations(relations, [m.id for m in held], at)
        source = (self._store.documents.get_document(target.space.id, memory.document_id)
                  if memory.document_id else None)
        titles = document_titles(self._store.documents, target.space.id, [n.memory for n in near])
        if source is not None:
            titles[source.id] = source.title
        note = (self._notes.states(target.space.id, [memory.id]).get(memory.id)
                if self._notes and at is None else None)  # how it stands today
        line = timeline(self._store.reads, self._store.relations, target.space.id, memory)
        if at is not None:
            shown = {m.id: m for m in self._view.memories(
                target.space.id, [p.memory for p in line], at)}
            line = [period_of(shown[p.memory.id], p.why) for p in line if p.memory.id in shown]
        named = {memory.id, *(i for r in relations for i in (r.source_id, r.target_id)),
                 *(n.memory.id for n in near), *(p.memory.id for p in line),
                 *(m.invalidated_by for m in (memory, *(n.memory for n in near)) if m.invalidated_by)}
        return MemoryDetail(target.space.slug, memory, tuple(relations), tuple(near), source,
                            titles, note, tuple(line), at,
                            short_ids(memory_ids(self._store.reads, target.space.id), named))

    def get_many(self, principal: Principal, memory_ids: Sequence[str],
                 space: str | None = None, known_at: str | datetime | None = None,
                 ) -> tuple[str, list[Memory], list[str]]:
        """Up to MAX_BATCH memories whole, in the order asked, and the ids not found (a foreign
        id is reported exactly like a missing one; with `known_at`, one recorded later or
        forgotten too), each as its record stood at `known_at`."""
        target = self._access.resolve(principal, space)
        at = time_slice(None, known_at, self._clock)
        wanted = list(dict.fromkeys(i.strip() for i in memory_ids if i and i.strip()))
        if not wanted:
            raise InvalidInput("pass the ids to read in `ids` (search_memory or listMemories "
                               "give them)")
        if len(wanted) > MAX_BATCH:
            raise InvalidInput(f"{len(wanted)} ids; getMemories reads at most {MAX_BATCH} per "
                               "call: split them")
        whole = {i: memory_id_of(self._store.reads, target.space.id, i, "ids") for i in wanted}
        read = [self._store.reads.get_memory(target.space.id, whole[i]) for i in wanted]
        shown = {m.id: m for m in self._view.memories(
            target.space.id, [m for m in read if m is not None], at)}
        return (target.space.slug, [shown[whole[i]] for i in wanted if whole[i] in shown],
                [i for i in wanted if whole[i] not in shown])

    def _known(self, space_id: str, memory: Memory, at: TimeSlice | None) -> Memory:
        """`memory` as it stood at the slice's knownAt, or NotFound when it was not held then."""
        shown = self._view.memories(space_id, [memory], at)
        if not shown:
            assert at is not None and at.known_at is not None
            raise NotFound(f"memory '{memory.id}' was not recorded at knownAt "
                           f"{at.known_at.isoformat()} (it was saved later, or forgotten); "
                           "read it without knownAt, or at a later time")
        return shown[0]

    def list(
        self,
        principal: Principal,
        space: str | None = None,
        category: str | None = None,
        include_inactive: bool = False,
        limit: int = 20,
        cursor: str | None = None,
        types: Sequence[str] | None = None,
        statuses: Sequence[str] | None = None,
        as_of: str | datetime | None = None,
        known_at: str | datetime | None = None,
    ) -> tuple[str, Page[Memory]]:
        """Newest first, paged by an opaque cursor tied to this space and these filters; with
        `as_of` / `known_at`, the memories of that time slice (docs/time.md)."""
        target = self._access.resolve(principal, space)
        cat = category_of(category) if category else None
        kinds, states = types_of(types), statuses_of(statuses)
        at = time_slice(as_of, known_at, self._clock)
        size = clamp_limit(limit, self._limits.max_page_size)
        query = fingerprint("memories", target.space.id, category=cat, inactive=include_inactive,
                            **({"types": ",".join(kinds)} if kinds else {}),
                            **({"statuses": ",".join(states)} if states else {}),
                            **({"at": f"{at.as_of}|{at.known_at}"} if at else {}))
        after: PageAfter | None = decode_cursor(cursor, query) if cursor else None
        where = MemoryFilter(target.space.id, cat, include_inactive, kinds, states, at)
        rows = [*self._statuses_then(where, size + 1, after)] if past_record(at) and states else \
            self._view.memories(target.space.id, self._store.reads.list_memories(where, size + 1, after), at)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor, self._short(target.space.id, rows))

    def _statuses_then(self, where: MemoryFilter, wanted: int,
                       after: PageAfter | None) -> Sequence[Memory]:
        """Up to `wanted` memories, newest first, whose status at knownAt is one asked for. The
        store's filter reads today's status, so the slice is read unfiltered and each record is
        judged as it stood then."""
        unfiltered = replace(where, statuses=())
        kept: Sequence[Memory] = ()
        while len(kept) < wanted:
            rows = self._store.reads.list_memories(unfiltered, STATUS_SCAN_PAGE, after)
            shown = self._view.memories(where.space_id, rows, where.at)
            kept = (*kept, *(m for m in shown if m.status in where.statuses))
            if len(rows) < STATUS_SCAN_PAGE:
                break
            after = PageAfter(rows[-1].created_at, rows[-1].id)
        return kept[:wanted]

    def changes(
        self,
        principal: Principal,
        since: str,
        space: str | None = None,
        category: str | None = None,
        limit: int = 100,
    ) -> tuple[str, Page[Change]]:
        """What changed (created, superseded, forgotten), oldest first, from a time or from the
        cursor an earlier call returned. The cursor is always returned, so a caller can come
        back later for what happened since; it pins the space and filters it was made with."""
        target = self._access.resolve(principal, space)
        cat = category_of(category) if category else None
        size = clamp_limit(limit, self._limits.max_page_size)
        after: ChangeAfter | None = None
        try:
            pinned: datetime | None = datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
        except ValueError:
            made_for, after, pinned = decode_change_cursor(since.strip())
            if made_for != fingerprint("changes", target.space.id, category=cat):
                raise InvalidInput(
                    "this cursor belongs to a different listing (another space or category); "
                    "repeat the call that produced it, or start again from a time"
                ) from None
        if pinned is not None:
            pinned = utc_time(pinned, "since")
        query = fingerprint("changes", target.space.id, category=cat)
        rows = self._store.reads.list_changes(MemoryFilter(target.space.id, cat), size, after, pinned)
        if rows:
            after = ChangeAfter(rows[-1].stamp, rows[-1].memory.id)
        return target.space.slug, Page(rows, encode_change_cursor(query, after, pinned),
                                       self._short(target.space.id, [r.memory for r in rows]))

    def _short(self, space_id: str, rows: Sequence[Memory]) -> dict[str, str]:
        """The short id of each listed memory and of the one that replaced it: one read."""
        named = [i for m in rows for i in (m.id, m.superseded_by) if i]
        return short_ids(memory_ids(self._store.reads, space_id), named) if named else {}

    def preview_correction(
        self,
        principal: Principal,
        memory_id: str,
        content: str | None,
        space: str | None = None,
        category: str | None = None,
        reason: str | None = None,
    ) -> CorrectionPreview:
        """What `correct` would write, checked by the same rules, without writing anything:
        the UPDATES edge from the new fact to the old one, which would become inactive."""
        target, old, text = self._correction(principal, memory_id, content, space)
        return CorrectionPreview(target.space.slug, text, category_of(category or old.category),
                                 old, (reason or "").strip() or "corrected by hand")
