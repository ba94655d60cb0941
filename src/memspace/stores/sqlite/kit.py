"""What a SQLite store shares with every role object it builds (stores/sqlite/store.py):
the connection (its transactions and errors), the store's in-process vector cache and each
space's counts (kept by the writes, read by the directory's `space_stats`). A role is
built over the kit, never over the store's private attributes."""

from __future__ import annotations

from dataclasses import dataclass, field

from memspace.stores.space_counts import SpaceCounts
from memspace.stores.sqlite.connection import SqliteConnection
from memspace.stores.vector_cache import VectorCache


@dataclass(frozen=True)
class SqliteKit:
    db: SqliteConnection
    vectors: VectorCache  # a role whose write changes what a search may show drops a space
    counts: SpaceCounts = field(default_factory=SpaceCounts)  # memories and relations, by version
