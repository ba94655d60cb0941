"""Where a memory stands (domain/lifecycle.py), set by hand: the one place a status changes
other than by a write (a correction leaves `superseded`, forgetting `historical`, a note saved
without waiting is `pending` until its facts are extracted). Every change made here is recorded
with who made it, when and why (LifecycleStore.marks_of), so a later reader (a conflict queue,
a time-travel read) can replay it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memspace.domain.as_known import as_known, existed
from memspace.domain.bitemporal import holds, utc
from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.graph_port import WithReads, WithRelations
from memspace.domain.lifecycle import MARKABLE, MemoryStatus, MemoryType, Revision
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import Clock
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.security import ContentGuard
from memspace.services.shared import chain, check_version, memory_id_of, memory_ids, short_ids, time_slice

MAX_REASON_CHARS = 500


class LifecyclePorts(WithReads, WithRelations, Protocol):
    """The store roles the lifecycle reads."""


@dataclass(frozen=True)
class Marked:
    space: str  # slug
    memory: Memory
    previous: MemoryStatus
    revision: Revision
    # The memory's id (and what replaced it) -> its short id (services/shared/id_prefixes.py).
    short: Mapping[str, str] = field(default_factory=dict)


def types_of(values: Sequence[str] | None) -> tuple[MemoryType, ...]:
    """A filter's types, or InvalidInput naming the twelve."""
    out: list[MemoryType] = []
    for value in values or ():
        text = value.strip().lower().replace("-", "_").replace(" ", "_")
        try:
            out.append(MemoryType(text))
        except ValueError:
            names = ", ".join(t.value for t in MemoryType)
            raise InvalidInput(f"type '{value}' is not one of {names}") from None
    return tuple(dict.fromkeys(out))


def statuses_of(values: Sequence[str] | None) -> tuple[MemoryStatus, ...]:
    """A filter's statuses, or InvalidInput naming the five."""
    out: list[MemoryStatus] = []
    for value in values or ():
        try:
            out.append(MemoryStatus(value.strip().lower()))
        except ValueError:
            names = ", ".join(s.value for s in MemoryStatus)
            raise InvalidInput(f"status '{value}' is not one of {names}") from None
    return tuple(dict.fromkeys(out))


def keeps(where: MemoryFilter, memory: Memory) -> bool:
    """Does `memory` pass the filter's types, statuses and time slice (a ranking that read more
    than the filter wanted narrows its list with this)?"""
    return ((not where.types or memory.type in where.types)
            and (not where.statuses or memory.status in where.statuses)
            and (where.at is None or holds(memory, where.at)))


def markable(status: str | None) -> MemoryStatus:
    """The status mark_memory may set, or InvalidInput naming the ones it may."""
    allowed = ", ".join(s.value for s in MARKABLE)
    try:
        chosen = MemoryStatus((status or "").strip().lower())
    except ValueError:
        raise InvalidInput(f"status '{status}' is not one mark_memory sets; pass one of {allowed} "
                           "(superseded comes from correct_memory, pending from a save)") from None
    if chosen not in MARKABLE:
        raise InvalidInput(f"status '{chosen.value}' is set by writes, not by hand; pass one of "
                           f"{allowed}. To replace a memory use correct_memory")
    return chosen


@dataclass(frozen=True)
class Version:
    """One version of a fact: the memory that holds it, why it was written, and the status
    changes set on it by hand."""

    memory: Memory
    why: str | None
    marks: tuple[Revision, ...]


class LifecycleService:
    """mark_memory and the status history of a memory."""

    def __init__(self, store: LifecyclePorts, marks: LifecycleStore, access: AccessService,
                 clock: Clock, guard: ContentGuard | None = None) -> None:
        # A reason is shown to every reader: it passes the write guard; a mark is recorded in
        # the guard's audit log.
        self._guard = guard
        self._store = store
        self._relations = store.relations
        self._marks = marks
        self._access = access
        self._clock = clock

    def mark(self, principal: Principal, memory_id: str, status: str | None,
             reason: str | None, space: str | None = None,
             expected_version: int | None = None) -> Marked:
        """Set `historical`, `disputed` or `current` on the current version of a memory, with
        the reason; with `expected_version`, refused (StaleVersion) unless it is still that."""
        target = self._access.resolve(principal, space, write=True)
        chosen = markable(status)
        why = " ".join((reason or "").split())
        if not why:
            raise InvalidInput("say why in `reason`: the next reader sees it in the history")
        if len(why) > MAX_REASON_CHARS:
            raise InvalidInput(f"reason is longer than {MAX_REASON_CHARS} characters")
        if self._guard is not None:
            why = self._guard.screen(target.space.id, {"reason": why}, principal.actor,
                                     target=(memory_id or "").strip()).text("reason")
        memory = self._store.reads.get_memory(
            target.space.id, memory_id_of(self._store.reads, target.space.id, memory_id))
        if memory is None:
            raise NotFound(f"no memory '{memory_id}' in this space; use an id search_memory or "
                           "listMemories returned for the same space")
        check_version(self._store.reads, target.space.id, memory, expected_version)
        marked = self._marks.mark(target.space.id, memory.id, chosen, why, principal.actor,
                                  self._clock.now(), expected_version)
        [revision] = self._marks.marks_of(target.space.id, [memory.id])[-1:]
        if self._guard is not None:
            self._guard.audit.record(principal.actor, "memory.mark", space_id=target.space.id,
                               target=memory.id, detail=f"{memory.status.value} -> "
                               f"{chosen.value}; reason: {why}")
        named = [i for i in (marked.id, marked.superseded_by) if i]
        return Marked(target.space.slug, marked, memory.status, revision,
                      short_ids(memory_ids(self._store.reads, target.space.id), named))

    def revisions(self, principal: Principal, memory_id: str, space: str | None = None,
                  known_at: str | datetime | None = None) -> tuple[str, list[Version]]:
        """Every version of the fact `memory_id` belongs to (the memories its corrections,
        patches and restatements chain together), oldest first, each with who wrote it, when
        and why, and the status changes set on it by hand. With `known_at`, the versions and
        marks recorded by then, each version as its record stood then (docs/time.md): a
        memory recorded later, or forgotten, is not found."""
        target = self._access.resolve(principal, space)
        at = time_slice(None, known_at, self._clock)
        when = at.known_at if at is not None else None
        memory = self._store.reads.get_memory(
            target.space.id, memory_id_of(self._store.reads, target.space.id, memory_id))
        if memory is None or (when is not None and not existed(memory, when)):
            raise NotFound(f"no memory '{memory_id}' in this space; use an id search_memory or "
                           "listMemories returned for the same space")
        chain = self._chain(target.space.id, memory)
        if when is not None:
            chain = [(m, why) for m, why in chain if existed(m, when)]
        marks: dict[str, list[Revision]] = {}
        for mark in self._marks.marks_of(target.space.id, [m.id for m, _ in chain]):
            marks.setdefault(mark.memory_id, []).append(mark)
        if when is None:
            return target.space.slug, [Version(m, why, tuple(marks.get(m.id, ())))
                                       for m, why in chain]
        return target.space.slug, [
            Version(as_known(m, when, marks.get(m.id, ())), why,
                    tuple(r for r in marks.get(m.id, ()) if utc(r.at) <= when))
            for m, why in chain]

    def _chain(self, space_id: str, memory: Memory) -> list[tuple[Memory, str | None]]:
        return chain(self._store.reads, self._relations, space_id, memory)

    def marks(self, space_id: str, memory_ids: list[str]) -> list[Revision]:
        """The recorded status changes of memories the caller already resolved."""
        return self._marks.marks_of(space_id, memory_ids)
