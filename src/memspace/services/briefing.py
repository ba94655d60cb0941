"""The `context` prompt: what a key's spaces know, ranked and packed into a token budget."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from memspace.domain.errors import InvalidInput
from memspace.domain.models import Memory, MemoryFilter, Space
from memspace.domain.ports import Clock, Embedder, GraphStore
from memspace.services.access import AccessService, Principal, SpaceAccess
from memspace.services.search import fuse

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


@dataclass
class Briefing:
    text: str
    included: list[str] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    tokens: int = 0


@dataclass(frozen=True)
class _Entry:
    memory: Memory
    header: str | None  # the section header this entry opens, when it is the first placed

    def full(self) -> str:
        day = self.memory.created_at.date().isoformat()
        return f"- [{self.memory.id}] ({self.memory.category}, {day}) {self.memory.content}\n"

    def pointer(self) -> str:
        words = self.memory.content.split()
        head = " ".join(words[:POINTER_WORDS]) + (" …" if len(words) > POINTER_WORDS else "")
        return f"- [{self.memory.id}] ({self.memory.category}) {head}\n"


class BriefingService:
    def __init__(self, store: GraphStore, embedder: Embedder, access: AccessService,
                 clock: Clock, count_tokens: Callable[[str], int]) -> None:
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock
        self._count = count_tokens

    def brief(self, principal: Principal, query: str | None = None,
              max_tokens: int = 2_000) -> Briefing:
        """The active space's profile and best memories, then up to three other recently active
        readable spaces; entries that do not fit are shortened to a pointer, then omitted."""
        if not MIN_TOKENS <= max_tokens <= MAX_TOKENS:
            raise InvalidInput(f"maxTokens must be between {MIN_TOKENS} and {MAX_TOKENS:,}")
        target = self._access.resolve(principal, None)
        others = sorted(
            (v for v in self._access.visible_spaces(principal) if v.space.id != target.space.id),
            key=lambda v: v.space.last_active_at, reverse=True)[:OTHER_SPACES]
        q = (query or "").strip() or None
        head = self._header(target, q)
        entries = [_Entry(m, "## What this space knows, most useful first\n" if i == 0 else None)
                   for i, m in enumerate(self._ranked(target.space, q))]
        for other in others:
            ranked = self._ranked(other.space, q)[:PER_OTHER_SPACE]
            title = (f"## Also readable: {other.space.slug} ({other.access.value})"
                     + (f" — {other.space.description}" if other.space.description else "") + "\n")
            entries += [_Entry(m, title if i == 0 else None) for i, m in enumerate(ranked)]
        return self._pack(head, entries, max_tokens)

    def _header(self, target: SpaceAccess, query: str | None) -> str:
        space = target.space
        stats = self._store.space_stats(space.id)
        lines = [f"# Shared memory: space '{space.slug}' ({space.name}, {target.access.value})"]
        if space.description:
            lines.append(space.description)
        lines.append(f"{stats.active_memories} active memories, {stats.relations} links. "
                     "Ids in brackets work with getMemory; search_memory finds more.")
        if query:
            lines.append(f"Ranked for: {query}")
        return "\n".join(lines) + "\n\n"

    def _ranked(self, space: Space, query: str | None) -> list[Memory]:
        where = MemoryFilter(space.id)
        pool = {m.id: m for m in self._store.list_memories(where, CANDIDATES)}
        relevance: dict[str, float] = {}
        if query:
            [vector] = self._embedder.embed([query])
            fused = fuse([self._store.vector_search(where, vector, CANDIDATES // 2),
                          self._store.text_search(where, query, CANDIDATES // 2)])
            top = fused[0][1] if fused else 1.0
            for memory, fused_score, _ in fused:
                pool.setdefault(memory.id, memory)
                relevance[memory.id] = fused_score / top
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
            for text, bucket in ((entry.full(), out.included), (entry.pointer(), out.shortened)):
                # +1: BPE may merge across the seam, so pieces counted apart can undercount.
                cost = self._count(prefix + text) + 1
                if used + cost + reserve <= budget:
                    out.text += prefix + text
                    used += cost
                    bucket.append(entry.memory.id)
                    open_header = None
                    break
            else:
                out.omitted.append(entry.memory.id)
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
