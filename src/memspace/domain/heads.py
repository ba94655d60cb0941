"""What a ranking reads of the memories it has not yet chosen.

A hybrid search ranks up to a hundred candidates (two lists of FUSION_DEPTH, services/search.py)
and shows ten. The blend (services/ranking.py) reads four fields of each candidate besides its
scores: its id, who said it, when it was observed and the turn it follows; the quarantine reads
whether it is suspicious. A store whose memories cross a wire reads only those for the
candidates (a `MemoryHead`) and the whole memory for the ones shown: at a million memories on
Neo4j, the whole projection of ~100 candidates took 7.2 ms of a 23.4 ms warm search and their
decoding 2.1 ms more (bench/cold_profile.py --warm 3). A store that has read the whole memory
anyway hands it over with the head (`whole`), and nothing is read again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memspace.domain.models import HybridHits, Memory, ScoredMemory


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


@dataclass(frozen=True)
class MemoryHead:
    id: str
    speaker: str | None = None
    observed_at: datetime | None = None
    follows: str | None = None
    suspicious: str | None = None
    # The memory itself, where the store read it whole anyway (None: read it for the answer).
    whole: Memory | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, memory: Memory) -> MemoryHead:
        return cls(memory.id, memory.speaker, memory.observed_at, memory.follows,
                   memory.suspicious, memory)


@dataclass(frozen=True)
class ScoredHead:
    memory: MemoryHead
    score: float


@dataclass(frozen=True)
class HybridHeads:
    """HybridHits (domain/models.py) with each memory's head only."""

    by_vector: list[ScoredHead]
    by_text: list[ScoredHead]
    cosines: dict[str, float]
    text_scores: dict[str, float]

    @classmethod
    def of(cls, by_vector: list[ScoredHead], by_text: list[ScoredHead],
           cosines: list[ScoredHead], text_scores: list[ScoredHead]) -> HybridHeads:
        return cls(by_vector, by_text, {h.memory.id: h.score for h in cosines},
                   {h.memory.id: h.score for h in text_scores})

    @classmethod
    def of_whole(cls, hits: HybridHits) -> HybridHeads:
        """The heads of memories read whole (each head keeps its memory)."""
        return cls(headed(hits.by_vector), headed(hits.by_text), hits.cosines, hits.text_scores)


def headed(hits: list[ScoredMemory]) -> list[ScoredHead]:
    return [ScoredHead(MemoryHead.of(h.memory), h.score) for h in hits]
