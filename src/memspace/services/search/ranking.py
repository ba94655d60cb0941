"""How the lists of a hybrid search become one ranking.

Two lists answer a natural-language query: the nearest memories by vector (cosine) and the best
by full text (BM25 over index terms). Each list's scores are min-max normalised over the
candidates, so the top of each list counts 1 and the last candidate 0, and a memory's score is
the weighted mean of its two normalised scores (0 from a list it is missing from). This is the convex
combination of Bruch et al. ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
2023), who found it beats reciprocal rank fusion because it keeps *how much* better one hit is
than the next, which rank positions throw away, and who normalise min-max as here.

The vector list weighs VECTOR_WEIGHT, the full-text list the rest. Measured with
bench/recall_conversations.py (e5-small-v2), tuned on LoCoMo 26-44: 0.6 against 0.5 gave
plain-text R@10 any 0.753 -> 0.762 and R@5 all 0.557 -> 0.569, and held on both reported parts
(LoCoMo 47-50 0.769 -> 0.779; chats 4-6 0.904 -> 0.922). (With all-MiniLM-L6-v2, whose vector
list was weaker, 0.5 had been best.)

A query that names a speaker of the memories it found ("What did Caroline research?") adds
SPEAKER_BOOST to the memories that speaker said: on LoCoMo 96% of the evidence of such
questions is said by the person named. The boost is a tenth of a list's top score, enough to
order memories of similar text by who said them, not enough to lift an unrelated one.
Measured: R@10 +0.019 (tune) / +0.025 (held out).

A turn of a conversation is often understood only through its neighbours: the question that a
reply answers, the reply that says what a question was about. So each memory found gains
NEIGHBOUR_WEIGHT times the best score among the turns up to NEIGHBOUR_STEPS before or after it
(`Memory.follows` links a turn to the one before, services/memories/conversation.py) — the way passage
retrieval lets a passage borrow from the passages around it. Only memories the two lists found
count, so no extra read is needed. Measured on the tune / held-out parts: R@10 0.795 / 0.784
-> 0.809 / 0.802 with 0.3 and two steps (one step: about 0.005 less on each); the turn after
folded into the memory's vector instead had been -0.011.

A query naming a date ("in August 2023", "on May 8, 2022", domain/dates.py) adds TIME_BOOST,
the same tenth as a named speaker, to the memories observed on a day of that period
(`observedAt`, in the caller's own offset). Measured: R@10 +0.009 (tune) / +0.002 (held out);
12% of LoCoMo's questions name a date.

Each lift can be switched off (TurnFeatures, MEMSPACE_CONVERSATION_FEATURES). The figures above
are of their first measurement; the current ones, each feature off in turn on LoCoMo and on a
user/assistant chat benchmark, are in docs/conversations.md (bench/recall_conversations.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Generic, Protocol, TypeVar, cast

from memspace.domain.dates import named_period
from memspace.domain.heads import Candidate, Turn
from memspace.domain.models import Memory, MemoryFilter, ScoredMemory
from memspace.domain.ports import MemoryReadStore
from memspace.domain.text import words
from memspace.services.memories import TurnFeatures

ALL_FEATURES = TurnFeatures()

VECTOR_WEIGHT = 0.6
SPEAKER_BOOST = 0.1
TIME_BOOST = SPEAKER_BOOST
NEIGHBOUR_WEIGHT = 0.3
NEIGHBOUR_STEPS = 2


# What a ranking holds: a Memory, or a Candidate until the ranking is cut (domain/heads.py).
T = TypeVar("T", bound=Turn)
T_co = TypeVar("T_co", bound=Turn, covariant=True)


class Scored(Protocol[T_co]):
    """A hit of one list (ScoredMemory, ScoredHead)."""

    @property
    def memory(self) -> T_co: ...

    @property
    def score(self) -> float: ...


@dataclass(frozen=True)
class Ranked(Generic[T]):
    memory: T
    score: float
    matched_by: tuple[str, ...]  # the lists (and rules) that found or lifted it


def normalised(scores: Mapping[str, float], unscored: bool = False) -> dict[str, float]:
    """Min-max over the candidates: the best counts 1 and the worst 0. Dividing by the best
    alone assumes scores that start near 0; e5-small-v2's cosines sit between 0.7 and 0.9 for
    any two texts, so every candidate counted ~0.9 and the vector list barely ordered anything
    (LoCoMo R@10 all 0.680 with e5 that way, 0.705 min-max; MiniLM 0.686 either way).

    `unscored`: some candidates have no score in this list (a store that gave no cosine for
    them); they count 0, so the bottom is 0 too, or the list's last hit would count as little
    as a memory it never found."""
    if not scores:
        return {}
    best, worst = max(scores.values()), min(scores.values())
    if unscored:
        worst = min(worst, 0.0)
    if best <= worst:
        return dict.fromkeys(scores, 1.0 if best > 0 else 0.0)
    return {m: (score - worst) / (best - worst) for m, score in scores.items()}


def blend(by_vector: Sequence[Scored[T]], by_text: Sequence[Scored[T]], query: str,
          cosines: Mapping[str, float] | None = None,
          text_scores: Mapping[str, float] | None = None,
          features: TurnFeatures = ALL_FEATURES) -> list[Ranked[T]]:
    """One ranking of the memories of the vector and full-text lists of `query` (see the
    module docstring).

    Both lists are cut (FUSION_DEPTH), so a memory of one list may sit below the other's cut:
    `cosines` and `text_scores` give it its real score there instead of 0 (vectors of one
    space are close together, so 0 is far below what they score). Measured on LoCoMo: R@10
    0.733 with 0 for the missing cosine, 0.792 with the real one; 0.813 -> 0.818 with the
    real BM25 too, which is the same as blending every memory of the space.
    """
    memories: dict[str, T] = {}
    found: dict[str, list[str]] = {}
    for name, hits in (("vector", by_vector), ("text", by_text)):
        for hit in hits:
            memories.setdefault(hit.memory.id, hit.memory)
            found.setdefault(hit.memory.id, []).append(name)
    vector_scores = ({h.memory.id: h.score for h in by_vector}
                     | {m: c for m, c in (cosines or {}).items() if m in memories})
    word_scores = ({h.memory.id: h.score for h in by_text}
                   | {m: t for m, t in (text_scores or {}).items() if m in memories})
    by_meaning = normalised(vector_scores, unscored=len(vector_scores) < len(memories))
    by_words = normalised(word_scores, unscored=len(word_scores) < len(memories))
    scores = {m: VECTOR_WEIGHT * by_meaning.get(m, 0.0) + (1.0 - VECTOR_WEIGHT) * by_words.get(m, 0.0)
              for m in memories}
    asked = set(words(query)) if features.speaker else set()
    for memory_id, memory in memories.items():
        if named(memory.speaker, asked):
            scores[memory_id] += SPEAKER_BOOST
            found[memory_id].append("speaker")
    lifts = _neighbour_lifts(memories, scores) if features.neighbours else {}
    for memory_id, lift in lifts.items():
        scores[memory_id] += lift
        found[memory_id].append("neighbour")
    period = named_period(query) if features.time else None
    if period is not None:
        for memory_id, memory in memories.items():
            if observed_in(memory.observed_at, period):
                scores[memory_id] += TIME_BOOST
                found[memory_id].append("time")
    order = sorted(scores, key=lambda m: (-scores[m], m))
    # The lifts can carry the best past 1: scaled back so that a score stays in [0, 1] (the
    # result contract), the order unchanged.
    top = max(1.0, scores[order[0]]) if order else 1.0
    return [Ranked(memories[m], scores[m] / top, tuple(found[m])) for m in order]


def _neighbour_lifts(memories: Mapping[str, Turn], scores: dict[str, float]) -> dict[str, float]:
    """NEIGHBOUR_WEIGHT x the best score among the turns up to NEIGHBOUR_STEPS before or after
    each memory in its conversation (`Memory.follows` links a turn to the one before), counting
    only the memories the two lists found: their links are known without another read."""
    before = {m: f for m, memory in memories.items()
              if (f := memory.follows) is not None and f in memories}
    near: dict[str, set[str]] = {}
    for memory_id, step in before.items():
        for _ in range(NEIGHBOUR_STEPS):
            near.setdefault(memory_id, set()).add(step)
            near.setdefault(step, set()).add(memory_id)
            if step not in before:
                break
            step = before[step]
    return {m: NEIGHBOUR_WEIGHT * max(scores[n] for n in others) for m, others in near.items()}


def observed_in(observed_at: datetime | None, period: tuple[date, date]) -> bool:
    """Was a memory observed on a day of `period` (the day in the caller's own offset)?"""
    return observed_at is not None and period[0] <= observed_at.date() <= period[1]


def named(speaker: str | None, asked: set[str]) -> bool:
    """Does a query (its words) name this speaker: every word of the name, in any case?"""
    if not speaker:
        return False
    name = words(speaker)
    return bool(name) and all(w in asked for w in name)


def whole(reads: MemoryReadStore, where: MemoryFilter, ranked: list[Ranked[Candidate]],
          known: Mapping[str, Memory] | None = None,
          read: Sequence[Memory] | None = None) -> list[Ranked[Memory]]:
    """The ranking with each memory whole: a head becomes one of `known`, else the memory read
    now (one read for all, or `read`: the ranking's memories as a read with more in it found
    them). A memory read now that the filter no longer holds (deactivated since its head was
    read) is left out."""
    found = dict(known or {})
    wanted = [r.memory.id for r in ranked
              if not isinstance(r.memory, Memory) and r.memory.id not in found]
    if wanted:
        now = reads.get_memories(where.space_id, wanted) if read is None else read
        found.update((m.id, m) for m in now
                     if m.id not in found and (m.active or where.include_inactive))
    if not wanted and all(isinstance(r.memory, Memory) for r in ranked):
        return cast(list[Ranked[Memory]], ranked)  # read whole already: nothing to redo
    return [Ranked(memory, r.score, r.matched_by) for r in ranked
            if (memory := r.memory if isinstance(r.memory, Memory)
                else found.get(r.memory.id)) is not None]


def single(hits: Sequence[ScoredMemory], name: str) -> list[Ranked[Memory]]:
    """One list as a ranking of its own (keyword or category search)."""
    return [Ranked(h.memory, h.score, (name,)) for h in hits]
