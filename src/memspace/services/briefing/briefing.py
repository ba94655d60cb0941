"""What a key's spaces know, by section and packed into a token budget: one implementation
behind the `get_context` tool, the `context` prompt and `memspace context`. The sections, their
order and the score within one are services/briefing/briefing_sections.py's, the packing
services/briefing/briefing_pack.py's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.bitemporal import TimeSlice, holds
from memspace.domain.embedder import Embedder
from memspace.domain.errors import InvalidInput, Unavailable
from memspace.domain.graph_port import WithDirectory, WithHandoffs, WithReads, WithRelations, WithSearch
from memspace.domain.lifecycle import MemoryStatus
from memspace.domain.models import Memory, MemoryFilter, Space
from memspace.domain.ports import Clock
from memspace.domain.quoting import NOTICE
from memspace.domain.role_ports import LifecycleStore
from memspace.domain.search_paths import ColdSearch
from memspace.domain.text import counted
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.briefing import briefing_sections as sec
from memspace.services.briefing.briefing_pack import Briefing, pack, shortened
from memspace.services.evidence import BrokenNotes
from memspace.services.memories import ColdNeighbours
from memspace.services.search import blend
from memspace.services.shared import (
    TODAY_LEFT_OUT,
    KnownView,
    NoteJobs,
    described,
    memory_ids,
    past_record,
    time_slice,
)

MIN_TOKENS = 200
MAX_TOKENS = 50_000
OTHER_SPACES = 3
PER_OTHER_SPACE = 5
CANDIDATES = 100
PER_SECTION = 40  # memories read per typed section
OPEN_CONFLICTS = 5
RECENT_CHANGES = 5


@dataclass(frozen=True)
class Detail:
    """A level of detail: the default budget and how many words of each memory are shown."""

    budget: int
    excerpt_words: int | None  # None: whole memories


# lean fits a small context window beside the task; deep reads a space in full.
DETAILS = {
    "lean": Detail(800, 30),
    "balanced": Detail(2_000, 80),
    "deep": Detail(6_000, None),
}


class BriefingPorts(WithDirectory, WithReads, WithRelations, WithSearch, WithHandoffs, Protocol):
    """The store roles a briefing reads."""


class BriefingService:
    def __init__(self, store: BriefingPorts, embedder: Embedder, access: AccessService,
                 clock: Clock, count_tokens: Callable[[str], int],
                 quarantines: Callable[[str], bool] | None = None,
                 marks: LifecycleStore | None = None,
                 broken: BrokenNotes | None = None,
                 open_conflicts: Callable[[str], int] | None = None,
                 cold: ColdNeighbours | None = None, notes: NoteJobs | None = None) -> None:
        """`broken`: the notes whose cited code moved or broke, per space (a code check);
        without it that section is empty. `quarantines`: whether a space keeps suspicious
        memories out of context (services/security/guard.py). `cold`: where a space this process does
        not hold is ranked from the store's own indexes and loaded in the background, as a
        search does (docs/scaling.md), instead of being loaded inside the request."""
        self._cold = cold
        self._quarantines = quarantines or (lambda _space_id: False)
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._count = count_tokens
        self._marks = marks
        self._view = KnownView(marks, notes)  # at knownAt, each memory as its record stood then
        self._broken = broken
        self._open_conflicts = open_conflicts or (lambda _space_id: 0)

    def brief(self, principal: Principal, query: str | None = None,
              max_tokens: int | None = None, detail: str = "balanced",
              space: str | None = None, as_of: str | datetime | None = None,
              known_at: str | datetime | None = None) -> Briefing:
        """The space's sections in their fixed order, then up to three other recently active
        readable spaces; entries that do not fit are shortened to a pointer, then omitted.
        `detail` sets the budget and excerpt length; `max_tokens` overrides the budget.
        `as_of` / `known_at` brief the space as it stood then (docs/time.md): its memories of
        that time slice only (no conflicts, handoff or other spaces: those are today's)."""
        if detail not in DETAILS:
            raise InvalidInput(f"detail must be one of {', '.join(DETAILS)}")
        level = DETAILS[detail]
        budget = level.budget if max_tokens is None else max_tokens
        if not MIN_TOKENS <= budget <= MAX_TOKENS:
            raise InvalidInput(f"maxTokens must be between {MIN_TOKENS} and {MAX_TOKENS:,}")
        target = self._access.resolve(principal, space)
        at = time_slice(as_of, known_at, self._clock)
        others = [] if at else sorted(
            (v for v in self._access.visible_spaces(principal) if v.space.id != target.space.id),
            key=lambda v: v.space.last_active_at, reverse=True)[:OTHER_SPACES]
        q = (query or "").strip() or None
        notes: list[str] = []
        entries = [] if at else self._conflicts(target.space) + self._broken_notes(target.space)
        handoff = None if at else self._store.handoffs.latest_handoff(target.space.id)
        if handoff is not None:
            entries.append(sec.handoff_entry(handoff))
        entries += self._memories(target.space, q, notes, level.excerpt_words, at)
        for other in others:
            found = self._relevance(other.space, q, notes)
            ranked = self._relevant(other.space, q, found, set())[:PER_OTHER_SPACE]
            title = (f"## Also readable: {other.space.slug} ({other.access.value})"
                     + (f" — {other.space.description}" if other.space.description else ""))
            entries += [sec.memory_entry(m, sec.Section(f"space:{other.space.slug}", title),
                                         i == 0, level.excerpt_words)
                        for i, m in enumerate(ranked)]
        waiting = 0 if past_record(at) else self._open_conflicts(target.space.id)
        head = self._header(target, q, notes[:1], waiting, at)
        if at is not None:  # a past view, said first: never mistaken for today's truth
            head = head.replace(NOTICE, f"{NOTICE}\nNOT TODAY'S VIEW: {described(at)}.", 1)
        spaces = {f"space:{o.space.slug}": o.space.id for o in others}
        entries, shown = shortened(entries, lambda e: spaces.get(e.section, target.space.id),
                                   lambda owner: memory_ids(self._store.reads, owner))
        out = pack(head, entries, budget, self._count, shown)
        out.at = at
        out.open_conflicts = waiting
        out.budget, out.detail, out.space = budget, detail, target.space.slug
        out.handoff = handoff.id if handoff is not None and handoff.id not in out.omitted else None
        out.notes = notes[:1]
        return out

    # -- sections ---------------------------------------------------------------------------

    def _conflicts(self, space: Space) -> list[sec.Entry]:
        """Disputed memories (with the reason they were marked), then supersessions that never
        finished (an UPDATES whose two ends are both active)."""
        disputed = self._store.reads.list_memories(
            MemoryFilter(space.id, statuses=(MemoryStatus.DISPUTED,)), OPEN_CONFLICTS)
        reasons: dict[str, str] = {}
        if self._marks is not None and disputed:
            for mark in self._marks.marks_of(space.id, [m.id for m in disputed]):
                reasons[mark.memory_id] = mark.reason  # the latest mark wins
        entries = [sec.disputed_entry(m, reasons.get(m.id), i == 0)
                   for i, m in enumerate(disputed)]
        for relation in self._store.relations.open_conflicts(space.id, OPEN_CONFLICTS):
            new = self._store.reads.get_memory(space.id, relation.source_id)
            old = self._store.reads.get_memory(space.id, relation.target_id)
            if new is not None and old is not None:
                entries.append(sec.unfinished_entry(new, old, not entries))
        return entries

    def _broken_notes(self, space: Space) -> list[sec.Entry]:
        found = list(self._broken(space.id)) if self._broken is not None else []
        return [sec.broken_entry(n, i == 0) for i, n in enumerate(found)]

    def _memories(self, space: Space, query: str | None, notes: list[str],
                  excerpt: int | None, at: TimeSlice | None = None) -> list[sec.Entry]:
        """The typed sections, the relevant notes, open tasks and recent changes."""
        now = self._clock.now()
        found = self._relevance(space, query, notes, at)
        relevance = {i: s for i, (s, _) in found.items()}
        seen: set[str] = set()
        entries: list[sec.Entry] = []
        hidden = self._hidden(space)

        def typed(section: sec.Section) -> None:
            pool = [m for m in self._view.memories(space.id, self._store.reads.list_memories(
                sec.shown(space, at, section.types), PER_SECTION), at) if not hidden(m)]
            inbound = self._inbound(space, [m.id for m in pool], at)
            ranked = sorted(pool, key=lambda m: (
                -sec.score(m, now, inbound.get(m.id, 0), relevance.get(m.id) if query else None),
                m.id))
            seen.update(m.id for m in ranked)
            entries.extend(sec.memory_entry(m, section, i == 0, excerpt)
                           for i, m in enumerate(ranked))

        for section in sec.TYPED:
            typed(section)
        relevant = self._relevant(space, query, found, seen, at)
        seen.update(m.id for m in relevant)
        entries += [sec.memory_entry(m, sec.RELEVANT, i == 0, excerpt)
                    for i, m in enumerate(relevant)]
        typed(sec.TASKS)
        # What changed last, in one line each (most also appear above, in full).
        recent = [m for m in self._view.memories(space.id, self._store.reads.list_memories(
            sec.shown(space, at), RECENT_CHANGES), at) if not hidden(m)]
        entries += [sec.recent_entry(m, i == 0) for i, m in enumerate(recent)]
        return entries

    def _ranker(self, space_id: str) -> ColdSearch:
        """The space held in memory, else the store's own indexes (the space then loads in
        the background for the next request)."""
        if self._cold is None or self._cold[0].is_warm(space_id):
            return self._store.search
        self._cold[0].warm_later(space_id)
        return self._cold[1]

    def _relevance(self, space: Space, query: str | None,
                   notes: list[str], at: TimeSlice | None = None
                   ) -> dict[str, tuple[float, Memory]]:
        """Each memory the query finds, scored 0-1 (the best 1); none without a query."""
        if not query:
            return {}
        where = MemoryFilter(space.id, include_inactive=at is not None)
        ranker = self._ranker(space.id)
        try:
            [vector] = self._embedder.embed_queries([query])
        except Unavailable as exc:  # words still rank while the model is down
            notes.append(f"Ranked by words only (embedder unavailable: {exc.message})")
            ranked = blend([], ranker.text_search(where, query, CANDIDATES // 2), query)
        else:
            hits = ranker.hybrid_search(where, vector, query, CANDIDATES // 2)
            ranked = blend(hits.by_vector, hits.by_text, query)
        ranked = [r for r in ranked if at is None or holds(r.memory, at)]
        top = ranked[0].score if ranked and ranked[0].score > 0 else 1.0
        shown = {m.id: m for m in self._view.memories(space.id, [r.memory for r in ranked], at)}
        return {hit.memory.id: (hit.score / top, shown[hit.memory.id]) for hit in ranked}

    def _hidden(self, space: Space) -> Callable[[Memory], bool]:
        """Whether a memory stays out of context: a suspicious one, where the space quarantines
        them (listed, never put in a model's context)."""
        if self._quarantines(space.id):
            return lambda memory: memory.suspicious is not None
        return lambda _memory: False

    def _relevant(self, space: Space, query: str | None,
                  found: dict[str, tuple[float, Memory]], seen: set[str],
                  at: TimeSlice | None = None) -> list[Memory]:
        """The notes no typed section holds: the newest and what the query finds, ranked."""
        relevance = {i: s for i, (s, _) in found.items()}
        pool = {m.id: m for m in self._view.memories(space.id, self._store.reads.list_memories(
            sec.shown(space, at), CANDIDATES), at)}
        pool.update((i, m) for i, (_, m) in found.items())
        hidden = self._hidden(space)
        kept = [m for m in pool.values() if m.id not in seen and m.type not in sec.IN_SECTIONS
                and (at is not None or m.status in sec.SHOWN) and m.space_id == space.id and not hidden(m)]
        inbound = self._inbound(space, [m.id for m in kept], at)
        now = self._clock.now()
        return sorted(kept, key=lambda m: (
            -sec.score(m, now, inbound.get(m.id, 0), relevance.get(m.id, 0.0) if query else None),
            m.id))

    def _inbound(self, space: Space, ids: list[str], at: TimeSlice | None = None
                 ) -> dict[str, int]:
        """How many memories point at each of these (one hop, relations into it; at knownAt,
        those recorded by then)."""
        counts: dict[str, int] = {}
        if not ids:
            return counts
        for near in self._store.relations.neighbours(
                space.id, ids, hops=1, per_origin=sec.LINKS_SATURATE,
                known_at=at.known_at if at is not None else None):
            if near.direction == "in":
                counts[near.origin_id] = counts.get(near.origin_id, 0) + 1
        return counts

    def _header(self, target: SpaceAccess, query: str | None, notes: list[str],
                waiting: int = 0, at: TimeSlice | None = None) -> str:
        # Read again: a key carries the spaces it was read with, instructions set since included.
        space = self._store.directory.get_space(target.space.id) or target.space
        stats = self._store.directory.space_stats(space.id)
        lines = [f"# Shared memory: space '{space.slug}' ({space.name}, {target.access.value})",
                 NOTICE]
        if space.description:
            lines.append(space.description)
        if space.instructions:
            lines += ["", "## Instructions for agents in this space", space.instructions, ""]
        counts = (f"{counted(stats.active_memories, 'active memory', 'active memories')}, "
                  f"{counted(stats.relations, 'link')}")
        if past_record(at):  # the counts are today's: the record keeps no earlier copy
            counts = f"The space's counts are {TODAY_LEFT_OUT}"
        elif at is not None:
            counts = f"Today: {counts}"
        lines.append(f"{counts}. Ids in brackets work with getMemory; search_memory finds more.")
        if waiting:
            lines.append(f"{counted(waiting, 'open conflict')} waiting for a decision: list_conflicts shows "
                         "them, resolve_conflict settles one.")
        if query:
            lines.append(f"Ranked for: {query}")
        lines += notes
        return "\n".join(lines) + "\n\n"
