"""GraphStore: every role of the graph together, as the adapters implement it (the roles
themselves are in domain/ports.py and domain/space_ports.py)."""

from __future__ import annotations

from typing import Protocol

from memspace.domain.ports import (
    DocumentStore,
    HandoffStore,
    MemoryReadStore,
    MemoryWriteStore,
    RelationStore,
    SearchStore,
)
from memspace.domain.space_ports import KeyStore, LedgerStore, SpaceStore


class GraphStore(SpaceStore, KeyStore, MemoryReadStore, MemoryWriteStore, RelationStore, SearchStore,
                 LedgerStore, HandoffStore, DocumentStore, Protocol):
    """Every role: what the adapters (stores/sqlite, stores/neo4j) implement and bootstrap wires.
    Every memory query is scoped to one space. A service asks only for the roles it calls."""

    # Its package under stores/ ("sqlite", "neo4j"), whose roles.py lists the role objects
    # built beside it (stores/roles.py).
    backend: str

    def store_info(self, key: str) -> str | None:
        """A fact about the store as a whole (e.g. "embedding_model"), or None if never set."""

    def set_store_info(self, key: str, value: str) -> None: ...

    def holds_memories(self) -> bool:
        """Does any space of the store hold a memory?"""

    def ping(self) -> None:
        """Raises Unavailable when the store cannot answer."""

    def close(self) -> None: ...
