"""The embedding model's port: Embedder, and the Calibration it hands to the rules that compare
a cosine to a number (what similarity numbers mean under that model)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Calibration:
    """Cosine similarities that mean "about the same thing" under one embedding model. Each
    model spreads cosines differently (all-MiniLM-L6-v2: unrelated facts 0.02-0.32; e5-small-v2:
    0.75-0.82), so the rules that compare a similarity to a number take it from the model
    (bench/similar_pairs.py measures them)."""

    update_floor: float  # an UPDATES below it is refused (services/memories/reconcile.py)
    similar_on_save: float  # active memories from it are listed on save (services/memories/similar.py)


# all-MiniLM-L6-v2's, measured with bench/similar_pairs.py: a fact and the fact that replaces it
# 0.49-0.90 ("Use ruff for linting" / "We switched from flake8 to ruff" 0.49), related facts up to
# 0.60, unrelated 0.02-0.32 ("Our standup is at 9:30" / "Lunch is at noon" 0.32). A model not
# measured here uses these.
MINILM_CALIBRATION = Calibration(update_floor=0.40, similar_on_save=0.45)


class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    @property
    def dimensions(self) -> int: ...

    @property
    def calibration(self) -> Calibration: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per stored text (a memory's content), in order. Raises Unavailable when
        the model cannot run."""

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per search query, in order. A model trained with a query/passage pair of
        prefixes (e5) reads them differently from stored texts; for others it is `embed`."""
