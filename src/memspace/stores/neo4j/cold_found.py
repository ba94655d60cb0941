"""The candidates of a large cold space's hybrid search (cold.py), before they are decoded:
whole memories for hybrid_search, their heads (domain/heads.py) for hybrid_heads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from memspace.domain.heads import Turn

M = TypeVar("M", bound=Turn)
S = TypeVar("S")


@dataclass(frozen=True)
class Found:
    projected: dict[int, Any]  # each candidate as the statement projected it, by seq
    by_vector: list[tuple[int, float]]  # (seq, cosine), best first
    by_text: list[tuple[int, float]]  # (seq, BM25), best first
    cosines: list[tuple[int, float]]  # every candidate with a vector
    text_scores: list[tuple[int, float]]  # every candidate (0: none of the words)

    def lists(self, decode: Callable[[Any], M], scored: Callable[[M, float], S]
              ) -> tuple[list[S], list[S], dict[str, float], dict[str, float]]:
        """HybridHits' (or HybridHeads') fields: the two lists decoded, the scores by id."""
        decoded = {seq: decode(p) for seq, p in self.projected.items()}

        def listed(hits: list[tuple[int, float]]) -> list[S]:
            return [scored(decoded[s], score) for s, score in hits if s in decoded]

        def by_id(hits: list[tuple[int, float]]) -> dict[str, float]:
            return {decoded[s].id: score for s, score in hits if s in decoded}

        return (listed(self.by_vector), listed(self.by_text), by_id(self.cosines),
                by_id(self.text_scores))
