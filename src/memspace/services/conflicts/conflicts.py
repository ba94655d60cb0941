"""The conflict queue (docs/conflicts.md): list a space's open conflicts with their memories side
by side, and settle one in one write. Access is checked here: listing needs read, resolving
needs write. What makes a conflict is in domain/conflicts.py; the records of the kinds that are
not visible in the memories themselves are written by services/memories/conflict_recorder.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Protocol

from memspace.domain.conflicts import (
    PROPOSAL,
    ConflictKind,
    OpenConflict,
    Proposal,
    RecordedConflict,
    Settlement,
    conflict_id,
    etag,
)
from memspace.domain.errors import InvalidInput, NotFound, StaleConflict
from memspace.domain.graph_port import WithReads, WithRelations
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import Clock, PageAfter
from memspace.domain.role_ports import ConflictStore, LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.memories import AddRequest, MemoryService
from memspace.services.security import ContentGuard
from memspace.services.shared import (
    Page,
    among,
    clamp_limit,
    decode_cursor,
    encode_cursor,
    fingerprint,
    memory_ids,
    resolve_id,
    short_ids,
)

# How many of each kind one listing looks at (a queue longer than this is a team's to work
# down; the count says so).
MAX_OPEN = 500
MAX_PAGE = 50
MAX_REASON_CHARS = 500
# Stores a kept proposal as a memory that supersedes what it contradicted (or beside it), as the
# resolver: (principal, space slug, proposal, supersedes) -> the new memory.
StoreProposal = Callable[[Principal, str, Proposal, tuple[str, ...]], Memory]


class ConflictPorts(WithReads, WithRelations, Protocol):
    """The store roles the queue reads beside its own."""


@dataclass(frozen=True)
class _Entry:
    """An open conflict before its memories are read: its id, its time (the queue's order)
    and how to read it whole (None if it stopped being a conflict meanwhile)."""

    id: str
    at: datetime
    read: Callable[[], OpenConflict | None]


def _given(conflict: OpenConflict) -> OpenConflict:
    return conflict


@dataclass(frozen=True)
class ConflictPage:
    space: str  # slug
    page: Page[OpenConflict]
    open: int  # how many are open in the space (up to MAX_OPEN of each kind)
    # Each conflict id (among the open ones) and side id (among the space's memories) -> its short id.
    short: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Resolution:
    space: str  # slug
    conflict: OpenConflict  # as it was when settled
    kept: Memory | None
    superseded: tuple[Memory, ...]
    dropped_proposal: bool  # a write_conflict's proposal that was never stored
    reason: str
    by: str
    at: datetime
    short: Mapping[str, str] = field(default_factory=dict)  # kept and superseded ids -> short ids


class ConflictService:
    def __init__(self, store: ConflictPorts, conflicts: ConflictStore, marks: LifecycleStore,
                 access: AccessService, clock: Clock,
                 store_proposal: StoreProposal | None = None,
                 guard: ContentGuard | None = None) -> None:
        # A reason is shown to every reader: it passes the write guard; a settlement is
        # recorded in the guard's audit log.
        self._guard = guard
        self._store = store
        self._conflicts = conflicts
        self._marks = marks
        self._access = access
        self._clock = clock
        self._store_proposal = store_proposal

    def listing(self, principal: Principal, space: str | None = None, limit: int = 20,
             cursor: str | None = None) -> ConflictPage:
        """The space's open conflicts, newest first, `limit` (1-50) per page."""
        target = self._access.resolve(principal, space)
        size = clamp_limit(limit, MAX_PAGE)
        query = fingerprint("conflicts", target.space.id)
        entries = self._entries(target.space.id)
        found = entries
        if cursor:
            after = decode_cursor(cursor, query)
            found = [e for e in entries if (e.at, e.id) < (after.created_at, after.id)]
        items = [c for c in (e.read() for e in found[:size]) if c is not None]
        more = len(found) > size
        last = found[size - 1] if more else None
        nxt = encode_cursor(query, PageAfter(last.at, last.id)) if last is not None else None
        short = {**short_ids(among(e.id for e in entries), [c.id for c in items]), **short_ids(
            memory_ids(self._store.reads, target.space.id), [m.id for c in items for m in c.memories])}
        return ConflictPage(target.space.slug, Page(items, nxt), len(entries), short)

    def count(self, space_id: str) -> int:
        """How many conflicts are open in a space the caller already resolved (whoAmI and
        get_context show it): three reads, no memory read one by one."""
        disputed = MemoryFilter(space_id, statuses=(MemoryStatus.DISPUTED,))
        return (len(self._store.relations.open_conflicts(space_id, MAX_OPEN))
                + len(self._store.reads.list_memories(disputed, MAX_OPEN))
                + len(self._conflicts.open_recorded(space_id, MAX_OPEN)))

    def open_of(self, space_id: str) -> list[OpenConflict]:
        """Every open conflict of a space, newest first (then by id, descending)."""
        return [c for c in (e.read() for e in self._entries(space_id)) if c is not None]

    def resolve(self, principal: Principal, conflict: str | None, keep: str | None,
                supersede: Sequence[str] | None, reason: str | None,
                version: str | None = None, space: str | None = None) -> Resolution:
        """Settle one open conflict in one write (docs/conflicts.md: what keep and supersede
        mean); with `version`, refused (stale_version) if it changed since it was listed."""
        target = self._access.resolve(principal, space, write=True)
        why = _reason(reason)
        if self._guard is not None:
            why = self._guard.screen(target.space.id, {"reason": why}, principal.actor,
                                     target=(conflict or "").strip()).text("reason")
        entries = self._entries(target.space.id)
        wanted = resolve_id(among(e.id for e in entries), conflict or "", "conflict", "conflictId")
        entry = next((e for e in entries if e.id == wanted), None)
        found = entry.read() if entry is not None else None
        if found is None:
            raise NotFound(f"no open conflict '{wanted}' in this space (it may be settled "
                           "already); list_conflicts shows the open ones with their ids")
        if version is not None and version.strip() != found.version:
            raise StaleConflict(found.id, version.strip(), found.version)
        kept_side, gone = _choice(found, keep, supersede)
        now = self._clock.now()
        kept_id = kept_side
        if kept_side == PROPOSAL:
            assert found.proposal is not None
            if self._store_proposal is None:
                raise InvalidInput("this server cannot store a proposal; keep the stored memory")
            stored = self._store_proposal(principal, target.space.slug, found.proposal,
                                          tuple(g for g in gone if g != PROPOSAL))
            kept_id, gone = stored.id, tuple(g for g in gone if g == PROPOSAL)
        settled = tuple(g for g in gone if g != PROPOSAL)
        record = self._record_of(target.space.id, found)
        versions = {m.id: m.version for m in found.memories if m.id in (kept_id, *settled)}
        if kept_id is not None and kept_id not in versions:
            kept_memory = self._store.reads.get_memory(target.space.id, kept_id)
            if kept_memory is not None:
                versions[kept_id] = kept_memory.version
        self._conflicts.settle(Settlement(record, kept_id, settled, why, principal.actor, now,
                                          versions))
        read = self._store.reads.get_memory
        kept = read(target.space.id, kept_id) if kept_id else None
        olds = tuple(m for m in (read(target.space.id, g) for g in settled) if m is not None)
        if self._guard is not None:
            self._guard.audit.record(principal.actor, "conflict.resolve", space_id=target.space.id,
                                     target=found.id, detail=f"kept {kept_id or 'none'}; "
                                     f"superseded {', '.join(settled) or 'none'}; reason: {why}")
        named = [i for m in (kept, *olds) if m is not None for i in (m.id, m.superseded_by) if i]
        return Resolution(target.space.slug, found, kept, olds, PROPOSAL in gone, why, principal.actor,
                          now, short_ids(memory_ids(self._store.reads, target.space.id), named))

    # -- the kinds ----------------------------------------------------------------------------
    # Each kind is listed as entries (id, time, and how to read the whole conflict), so a page
    # reads the memories of its own conflicts only.

    def _entries(self, space_id: str) -> list[_Entry]:
        found = [*self._two_heads(space_id), *self._disputed(space_id),
                 *self._recorded(space_id)]
        unique = {e.id: e for e in found}
        return sorted(unique.values(), key=lambda e: (e.at, e.id), reverse=True)

    def _two_heads(self, space_id: str) -> list[_Entry]:
        out = []
        for relation in self._store.relations.open_conflicts(space_id, MAX_OPEN):
            ids = (relation.source_id, relation.target_id)
            cid = conflict_id(space_id, ConflictKind.TWO_HEADS, ids)
            why = (f"'{relation.source_id}' updates '{relation.target_id}' but both are still "
                   "current (a correction that did not finish, or two that raced)"
                   + (f"; the update said: {relation.reason}" if relation.reason else ""))
            out.append(_Entry(cid, relation.created_at, partial(
                self._read, space_id, cid, ConflictKind.TWO_HEADS, why, ids,
                relation.created_at, relation.created_by, None)))
        return out

    def _disputed(self, space_id: str) -> list[_Entry]:
        where = MemoryFilter(space_id, statuses=(MemoryStatus.DISPUTED,))
        disputed = self._store.reads.list_memories(where, MAX_OPEN)
        marks = {m.memory_id: m for m in self._marks.marks_of(space_id, [m.id for m in disputed])
                 if m.status == MemoryStatus.DISPUTED.value}
        out = []
        for memory in disputed:
            mark = marks.get(memory.id)
            cid = conflict_id(space_id, ConflictKind.DISPUTED, (memory.id,))
            why = f"marked disputed: {mark.reason}" if mark else "marked disputed"
            found = OpenConflict(cid, ConflictKind.DISPUTED, why, (memory,),
                                 mark.at if mark else memory.created_at,
                                 mark.by if mark else memory.created_by, etag(cid, (memory,)))
            out.append(_Entry(cid, found.at, partial(_given, found)))
        return out

    def _recorded(self, space_id: str) -> list[_Entry]:
        return [_Entry(r.id, r.at, partial(self._read, space_id, r.id, r.kind, r.why,
                                           r.memory_ids, r.at, r.by, r.proposal))
                for r in self._conflicts.open_recorded(space_id, MAX_OPEN)]

    def _read(self, space_id: str, cid: str, kind: ConflictKind, why: str,
              ids: tuple[str, ...], at: datetime, by: str,
              proposal: Proposal | None) -> OpenConflict | None:
        memories = self._memories(space_id, ids)
        if memories is None:
            return None
        return OpenConflict(cid, kind, why, memories, at, by, etag(cid, memories), proposal)

    def _memories(self, space_id: str, ids: Sequence[str]) -> tuple[Memory, ...] | None:
        """The memories, or None when one of them is no longer current (no longer a conflict)."""
        found = [self._store.reads.get_memory(space_id, i) for i in ids]
        if any(m is None or not m.active for m in found):
            return None
        return tuple(m for m in found if m is not None)

    def _record_of(self, space_id: str, found: OpenConflict) -> RecordedConflict:
        return RecordedConflict(found.id, space_id, found.kind, tuple(m.id for m in found.memories),
                                found.why, found.by, found.at, found.proposal)


def _reason(reason: str | None) -> str:
    why = " ".join((reason or "").split())
    if not why:
        raise InvalidInput("say why in `reason` (kept in the memories' history), e.g. "
                           "reason='the March load test settled it'")
    if len(why) > MAX_REASON_CHARS:
        raise InvalidInput(f"reason is longer than {MAX_REASON_CHARS} characters")
    return why


def _choice(found: OpenConflict, keep: str | None,
            supersede: Sequence[str] | None) -> tuple[str | None, tuple[str, ...]]:
    """The side kept and the sides superseded, checked against the conflict's sides."""
    sides = found.sides
    named = ", ".join(f"'{s}'" for s in sides)
    kept = resolve_id(among(sides), keep or "", "side", "keep") or None
    gone = tuple(dict.fromkeys(resolve_id(among(sides), s, "side", "supersede")
                               for s in (supersede or ()) if s and s.strip()))
    if kept is None and not gone:
        raise InvalidInput(f"name the side that holds in `keep` and the ones that no longer do "
                           f"in `supersede`; this conflict's sides are {named}")
    for side in (*([kept] if kept else []), *gone):
        if side not in sides:
            raise InvalidInput(f"'{side}' is not a side of conflict '{found.id}'; its sides are "
                               f"{named}")
    if kept is not None and kept in gone:
        raise InvalidInput(f"'{kept}' is both kept and superseded; name it in one of them")
    if found.kind is ConflictKind.TWO_HEADS and not gone:
        raise InvalidInput("one head of a two_heads conflict must go: name it in `supersede` "
                           f"(its sides are {named}), e.g. keep='{sides[0]}', "
                           f"supersede=['{sides[-1]}']")
    return kept, gone


def proposal_writer(flat: MemoryService) -> StoreProposal:
    """How a kept proposal is stored: a flat add (no model) that supersedes what it names, or
    stands beside it (`force`)."""

    def store(principal: Principal, space: str, proposal: Proposal,
              supersedes: tuple[str, ...]) -> Memory:
        added = flat.submit(principal, AddRequest(
            proposal.content, space=space, category=proposal.category,
            memory_type=proposal.type.value, supersedes=supersedes, force=True))
        return added.memories[0]

    return store
