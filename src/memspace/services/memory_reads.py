"""The read side of memories (docs/contract.md): one memory with its neighbourhood, the newest-first
listing, the change feed, and the preview of a correction (checked, never written)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memspace.domain.errors import InvalidInput
from memspace.domain.models import Document, Memory, MemoryFilter, Neighbour, Relation
from memspace.domain.notes import NoteJob
from memspace.domain.ports import Change, ChangeAfter, Clock, PageAfter
from memspace.services.access import AccessService, Principal
from memspace.services.documents import document_titles
from memspace.services.extraction_jobs import NoteExtraction
from memspace.services.lifecycle import statuses_of, types_of
from memspace.services.memory_parts import CorrectionCheck
from memspace.services.memory_rules import Limits, ReadPorts, category_of, memory_in
from memspace.services.paging import (
    Page,
    clamp_limit,
    decode_change_cursor,
    decode_cursor,
    encode_change_cursor,
    encode_cursor,
    fingerprint,
    utc_time,
)
from memspace.services.time_travel import Period, time_slice, timeline

MAX_BATCH = 50  # memories getMemories reads in one call


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
    how a note saved without waiting stands (None without a model)."""

    def __init__(self, store: ReadPorts, access: AccessService, clock: Clock, limits: Limits,
                 correction: CorrectionCheck, notes: NoteExtraction | None = None) -> None:
        self._store = store
        self._access = access
        self._clock = clock
        self._limits = limits
        self._correction = correction
        self._notes = notes

    def get(self, principal: Principal, memory_id: str, space: str | None = None) -> MemoryDetail:
        """One memory with its direct relations, its neighbourhood (the history chain) and the
        document it came from, if any."""
        target = self._access.resolve(principal, space)
        memory = memory_in(self._store.reads, target.space.id, memory_id)
        relations = self._store.relations.relations_of(target.space.id, memory.id)
        near = self._store.relations.neighbours(target.space.id, [memory.id], hops=2, per_origin=20)
        source = (self._store.documents.get_document(target.space.id, memory.document_id)
                  if memory.document_id else None)
        titles = document_titles(self._store.documents, target.space.id, [n.memory for n in near])
        if source is not None:
            titles[source.id] = source.title
        note = (self._notes.states(target.space.id, [memory.id]).get(memory.id)
                if self._notes else None)
        line = timeline(self._store.reads, self._store.relations, target.space.id, memory)
        return MemoryDetail(target.space.slug, memory, tuple(relations), tuple(near), source,
                            titles, note, tuple(line))

    def get_many(self, principal: Principal, memory_ids: Sequence[str],
                 space: str | None = None) -> tuple[str, list[Memory], list[str]]:
        """Up to MAX_BATCH memories whole, in the order asked, and the ids not found (a foreign
        id is reported exactly like a missing one)."""
        target = self._access.resolve(principal, space)
        wanted = list(dict.fromkeys(i.strip() for i in memory_ids if i and i.strip()))
        if not wanted:
            raise InvalidInput("pass the ids to read in `ids` (search_memory or listMemories "
                               "give them)")
        if len(wanted) > MAX_BATCH:
            raise InvalidInput(f"{len(wanted)} ids; getMemories reads at most {MAX_BATCH} per "
                               "call: split them")
        found: list[Memory] = []
        missing: list[str] = []
        for memory_id in wanted:
            memory = self._store.reads.get_memory(target.space.id, memory_id)
            if memory is None:
                missing.append(memory_id)
            else:
                found.append(memory)
        return target.space.slug, found, missing

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
        rows = self._store.reads.list_memories(where, size + 1, after)
        next_cursor = None
        if len(rows) > size:
            rows = rows[:size]
            next_cursor = encode_cursor(query, PageAfter(rows[-1].created_at, rows[-1].id))
        return target.space.slug, Page(rows, next_cursor)

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
        return target.space.slug, Page(rows, encode_change_cursor(query, after, pinned))

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
