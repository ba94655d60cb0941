"""The store's indexes as they stand: online, or still being built in the background.

Neo4j builds an index created on a store that already holds data (and a large space's own
vector index, stores/neo4j/space_vectors.py) after the statement that created it returns,
and searches that need it meanwhile take a slower path. `/readyz`, `memspace doctor` and the
import's last line report it (docs/scaling.md, "A fresh load"). SQLite writes every index
inside each transaction: it has none to wait for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ONLINE = "ONLINE"
POPULATING = "POPULATING"


@dataclass(frozen=True)
class IndexState:
    name: str
    state: str  # ONLINE, POPULATING, FAILED (Neo4j's words)
    percent: float  # how much of its population is done, 0-100


@dataclass(frozen=True)
class IndexProgress:
    """What is still building, out of how many indexes."""

    building: tuple[IndexState, ...]
    total: int

    @classmethod
    def of(cls, states: Sequence[IndexState]) -> IndexProgress:
        return cls(tuple(s for s in states if s.state != ONLINE), len(states))

    @property
    def done(self) -> bool:
        return not self.building

    @property
    def percent(self) -> float:
        """The least advanced index's progress (100 when none is building)."""
        return min((s.percent for s in self.building), default=100.0)

    def describe(self) -> str:
        """One line for a person: which indexes are still building and how far each is."""
        if self.done:
            return f"all {self.total} indexes online"
        parts = ", ".join(f"{s.name} {s.state.lower()} {s.percent:.0f}%" for s in self.building)
        return (f"{len(self.building)} of {self.total} indexes still building ({parts}); "
                "searches that need them take a slower path until they are online")

    def as_json(self) -> dict[str, object]:
        return {"online": self.total - len(self.building), "total": self.total,
                "percent": round(self.percent, 1),
                "building": [{"name": s.name, "state": s.state.lower(),
                              "percent": round(s.percent, 1)} for s in self.building]}


def index_progress(store: Any) -> IndexProgress | None:
    """The store's index progress, or None for a store that builds none in the background
    (SQLite) or one that cannot tell."""
    states = getattr(store, "index_states", None)
    return None if states is None else IndexProgress.of(states())
