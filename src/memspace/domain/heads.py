"""What a ranking reads of the memories it has not yet chosen.

A hybrid search ranks up to a hundred candidates (two lists of FUSION_DEPTH, services/search/search.py)
and shows ten. The blend (services/search/ranking.py) reads four fields of each candidate besides its
scores: its id, who said it, when it was observed and the turn it follows; the quarantine reads
whether it is suspicious. A store whose memories cross a wire reads only those for the
candidates (a `MemoryHead`) and the whole memory for the ones shown: at a million memories on
Neo4j, the whole projection of ~100 candidates took 7.2 ms of a 23.4 ms warm search and their
decoding 2.1 ms more (bench/cold_profile.py --warm 3). A store that has read the whole memory
anyway hands it over instead of its head, and nothing is read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from memspace.domain.models import HybridHits, Memory, ScoredMemory, scores_by_id


class Turn(Protocol):
    """The fields of a memory that the blend's lifts read (a Memory or a MemoryHead)."""

    @property
    def id(self) -> str: ...

    @property
    def speaker(self) -> str | None: ...

    @property
    def observed_at(self) -> datetime | None: ...

    @property
    def follows(self) -> str | None: ...


# Tuples, not frozen dataclasses: a search makes ~100 heads and ~400 scored ones, and a frozen
# dataclass's __init__ (a setattr per field) cost SQLite's hybrid p50 0.5 ms when its whole
# memories were copied into heads (bench/hybrid_ab.py).
class MemoryHead(NamedTuple):
    id: str
    speaker: str | None = None
    observed_at: datetime | None = None
    follows: str | None = None
    suspicious: str | None = None


class ScoredHead(NamedTuple):
    memory: MemoryHead
    score: float


# A candidate of a ranking: its head, or the memory itself where the store read it whole anyway.
Candidate = Memory | MemoryHead


@dataclass(frozen=True)
class HybridHeads:
    """HybridHits (domain/models.py) with only the head of each memory the store did not read
    whole anyway."""

    by_vector: Sequence[ScoredHead | ScoredMemory]
    by_text: Sequence[ScoredHead | ScoredMemory]
    cosines: dict[str, float]
    text_scores: dict[str, float]

    @classmethod
    def of(cls, by_vector: list[ScoredHead], by_text: list[ScoredHead],
           cosines: list[ScoredHead], text_scores: list[ScoredHead]) -> HybridHeads:
        return cls(by_vector, by_text, scores_by_id(cosines), scores_by_id(text_scores))

    @classmethod
    def of_whole(cls, hits: HybridHits) -> HybridHeads:
        """The lists of memories read whole, as they are."""
        return cls(hits.by_vector, hits.by_text, hits.cosines, hits.text_scores)
