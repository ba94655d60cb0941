"""What a key's spaces know, ranked and packed into a token budget: one implementation behind
the `get_context` tool, the `context` prompt and `memspace context`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memspace.domain.errors import InvalidInput, Unavailable
from memspace.domain.models import Handoff, Memory, MemoryFilter, Space
from memspace.domain.ports import (
    Clock,
    Embedder,
    EvidenceStore,
    HandoffStore,
    MemoryReadStore,
    RelationStore,
    SearchStore,
    SpaceStore,
)
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.ranking import blend

MIN_TOKENS = 200
MAX_TOKENS = 50_000
OTHER_SPACES = 3
PER_OTHER_SPACE = 5
CANDIDATES = 100
# Recency decays slowly: a memory loses half its recency weight per year, so a two-year-old
# decision still weighs a quarter of today's note — decisions outlive chatter.
HALF_LIFE_DAYS = 365.0
# Links saturate: ten linked memories count as fully "central".
LINKS_SATURATE = 10
POINTER_WORDS = 8
SEAM_MARGIN = 8
OPEN_CONFLICTS = 5


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


@dataclass
class Briefing:
    text: str
    included: list[str] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0
    detail: str = "balanced"
    space: str = ""
    handoff: str | None = None  # id of the handoff shown, if any
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Entry:
    id: str
    full: str
    pointer: str
    header: str | None  # the section header this entry opens, when it is the first placed


def _words(text: str, limit: int | None) -> str:
    words = text.split()
    if limit is None or len(words) <= limit:
        return " ".join(words)
    return " ".join(words[:limit]) + " …"


def _memory_entry(memory: Memory, header: str | None, excerpt: int | None) -> _Entry:
    day = memory.created_at.date().isoformat()
    full = f"- [{memory.id}] ({memory.category}, {day}) {_words(memory.content, excerpt)}\n"
    pointer = f"- [{memory.id}] ({memory.category}) {_words(memory.content, POINTER_WORDS)}\n"
    return _Entry(memory.id, full, pointer, header)


def _handoff_entry(h: Handoff) -> _Entry:
    when = h.created_at.strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"- [{h.id}] {h.agent} on '{h.topic}', {when}: {h.summary}"]
    for title, items in (("Done", h.done), ("Next", h.next_steps),
                         ("Open questions", h.open_questions), ("Links", h.links)):
        if items:
            lines.append(f"  {title}: " + "; ".join(items))
    pointer = f"- [{h.id}] {h.agent} on '{h.topic}', {when}: {_words(h.summary, POINTER_WORDS)}\n"
    return _Entry(h.id, "\n".join(lines) + "\n", pointer,
                  "## Latest handoff (latest_handoff shows it whole)\n")


def _conflict_entry(new: Memory, old: Memory, first: bool) -> _Entry:
    full = (f"- [{new.id}] {_words(new.content, 30)}\n"
            f"  still active beside [{old.id}] {_words(old.content, 30)}\n")
    pointer = f"- [{new.id}] updates [{old.id}], both active\n"
    header = ("## Open conflicts: both sides are active — correct one (correct_memory) or "
              "forget the other\n") if first else None
    return _Entry(f"{new.id}>{old.id}", full, pointer, header)


class BriefingPorts(SpaceStore, MemoryReadStore, RelationStore, SearchStore, HandoffStore, Protocol):
    """The store roles a briefing reads."""


class BriefingService:
    def __init__(self, store: BriefingPorts, embedder: Embedder, access: AccessService,
                 clock: Clock, count_tokens: Callable[[str], int],
                 evidence: EvidenceStore | None = None) -> None:
        self._evidence = evidence  # moved and broken notes are listed after open conflicts
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._count = count_tokens

    def brief(self, principal: Principal, query: str | None = None,
              max_tokens: int | None = None, detail: str = "balanced",
              space: str | None = None) -> Briefing:
        """The space's latest handoff, open conflicts and best memories, then up to three other
        recently active readable spaces; entries that do not fit are shortened to a pointer,
        then omitted. `detail` sets the budget and excerpt length; `max_tokens` overrides the
        budget."""
        if detail not in DETAILS:
            raise InvalidInput(f"detail must be one of {', '.join(DETAILS)}")
        level = DETAILS[detail]
        budget = level.budget if max_tokens is None else max_tokens
        if not MIN_TOKENS <= budget <= MAX_TOKENS:
            raise InvalidInput(f"maxTokens must be between {MIN_TOKENS} and {MAX_TOKENS:,}")
        target = self._access.resolve(principal, space)
        others = sorted(
            (v for v in self._access.visible_spaces(principal) if v.space.id != target.space.id),
            key=lambda v: v.space.last_active_at, reverse=True)[:OTHER_SPACES]
        q = (query or "").strip() or None
        notes: list[str] = []
        entries: list[_Entry] = []
        handoff = self._store.latest_handoff(target.space.id)
        if handoff is not None:
            entries.append(_handoff_entry(handoff))
        entries += self._conflicts(target.space)
        entries += self._flagged(target.space)
        entries += [_memory_entry(m, "## What this space knows, most useful first\n" if i == 0
                                  else None, level.excerpt_words)
                    for i, m in enumerate(self._ranked(target.space, q, notes))]
        for other in others:
            ranked = self._ranked(other.space, q, notes)[:PER_OTHER_SPACE]
            title = (f"## Also readable: {other.space.slug} ({other.access.value})"
                     + (f" — {other.space.description}" if other.space.description else "") + "\n")
            entries += [_memory_entry(m, title if i == 0 else None, level.excerpt_words)
                        for i, m in enumerate(ranked)]
        out = self._pack(self._header(target, q, notes[:1]), entries, budget)
        out.budget, out.detail, out.space = budget, detail, target.space.slug
        out.handoff = handoff.id if handoff is not None and handoff.id not in out.omitted else None
        out.notes = notes[:1]
        return out

    def _conflicts(self, space: Space) -> list[_Entry]:
        entries: list[_Entry] = []
        for relation in self._store.open_conflicts(space.id, OPEN_CONFLICTS):
            new = self._store.get_memory(space.id, relation.source_id)
            old = self._store.get_memory(space.id, relation.target_id)
            if new is not None and old is not None:
                entries.append(_conflict_entry(new, old, not entries))
        return entries

    def _flagged(self, space: Space) -> list[_Entry]:
        """Notes whose cited code moved or is gone (services/verification.py), newest first."""
        if self._evidence is None:
            return []
        found = [m for state in ("broken", "moved")
                 for m in self._evidence.memories_in_state(space.id, state, OPEN_CONFLICTS)]
        header = ("## Moved or broken notes: their cited code changed — check it, then "
                  "correct_memory with fresh evidence or forget\n")
        return [_Entry(f"{m.id}!", f"- [{m.id}] ({m.verification}: "
                       f"{', '.join(c.text for c in m.evidence)}) {_words(m.content, 30)}\n",
                       f"- [{m.id}] {m.verification}\n", header if i == 0 else None)
                for i, m in enumerate(found)]

    def _header(self, target: SpaceAccess, query: str | None, notes: list[str]) -> str:
        space = target.space
        stats = self._store.space_stats(space.id)
        lines = [f"# Shared memory: space '{space.slug}' ({space.name}, {target.access.value})"]
        if space.description:
            lines.append(space.description)
        lines.append(f"{stats.active_memories} active memories, {stats.relations} links. "
                     "Ids in brackets work with getMemory; search_memory finds more.")
        if query:
            lines.append(f"Ranked for: {query}")
        lines += notes
        return "\n".join(lines) + "\n\n"

    def _ranked(self, space: Space, query: str | None, notes: list[str]) -> list[Memory]:
        where = MemoryFilter(space.id)
        pool = {m.id: m for m in self._store.list_memories(where, CANDIDATES)}
        relevance: dict[str, float] = {}
        if query:
            try:
                [vector] = self._embedder.embed_queries([query])
                by_vector = self._store.vector_search(where, vector, CANDIDATES // 2)
            except Unavailable as exc:  # words still rank while the model is down
                by_vector = []
                notes.append(f"Ranked by words only (embedder unavailable: {exc.message})")
            ranked = blend(by_vector, self._store.text_search(where, query, CANDIDATES // 2),
                           query)
            top = ranked[0].score if ranked and ranked[0].score > 0 else 1.0
            for hit in ranked:
                pool.setdefault(hit.memory.id, hit.memory)
                relevance[hit.memory.id] = hit.score / top
        degree: dict[str, int] = {}
        for near in self._store.neighbours(space.id, list(pool), hops=1, per_origin=LINKS_SATURATE):
            degree[near.origin_id] = degree.get(near.origin_id, 0) + 1
        now = self._clock.now()

        def rank(memory: Memory) -> float:
            rec = _recency(memory.created_at, now)
            links = math.log1p(degree.get(memory.id, 0)) / math.log1p(LINKS_SATURATE)
            if query:
                return 0.6 * relevance.get(memory.id, 0.0) + 0.25 * rec + 0.15 * links
            return 0.65 * rec + 0.35 * links

        return sorted(pool.values(), key=lambda m: (-rank(m), m.id))

    def _pack(self, head: str, entries: list[_Entry], budget: int) -> Briefing:
        """Fixed section order; an entry that does not fit becomes a one-line pointer, then is
        omitted. The closing list names omitted ids in rank order, as many as the budget holds,
        and counts the rest — a reserve kept free while packing guarantees it fits."""
        out = Briefing(text=head)
        used = self._count(head)
        # Room kept for the closing list (at least one id and the count of the rest), with a
        # margin for the seams: pieces counted apart run a few tokens under the whole.
        reserve = self._count(_footer(["0" * 32], 10_000)) + SEAM_MARGIN
        if used + reserve > budget:
            raise InvalidInput(f"maxTokens={budget} cannot hold even the space header; raise it")
        open_header: str | None = None
        for entry in entries:
            if entry.header is not None:
                open_header = entry.header  # printed with the first entry placed under it
            prefix = f"\n{open_header}" if open_header else ""
            for text, bucket in ((entry.full, out.included), (entry.pointer, out.shortened)):
                # +1: BPE may merge across the seam, so pieces counted apart can undercount.
                cost = self._count(prefix + text) + 1
                if used + cost + reserve <= budget:
                    out.text += prefix + text
                    used += cost
                    bucket.append(entry.id)
                    open_header = None
                    break
            else:
                out.omitted.append(entry.id)
        if out.omitted:
            # Counted on the whole text, so the result is exact whatever the seams did above.
            listed = len(out.omitted)
            while listed > 0 and self._count(
                    out.text + _footer(out.omitted[:listed], len(out.omitted) - listed)) > budget:
                listed = listed * 3 // 4  # shrink geometrically: few token counts
            out.text += _footer(out.omitted[:listed], len(out.omitted) - listed)
        out.tokens = self._count(out.text)
        return out


def _footer(ids: list[str], unlisted: int) -> str:
    more = f"{', ' if ids else ''}and {unlisted} more (search_memory finds them)" if unlisted else ""
    return (f"\n## Omitted to fit the budget ({len(ids) + unlisted}; fetch with getMemory)\n"
            + ", ".join(ids) + more + "\n")


def _recency(created: datetime, now: datetime) -> float:
    age_days = max(0.0, (now - created).total_seconds() / 86_400)
    return float(0.5 ** (age_days / HALF_LIFE_DAYS))
