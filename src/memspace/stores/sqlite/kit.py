"""What a SQLite store shares with the role objects built beside it (stores/sqlite/roles.py):
the connection (its transactions and errors) and the store's in-process vector cache. A role is
built over the kit, never over the store's private attributes."""

from __future__ import annotations

from dataclasses import dataclass

from memspace.stores.sqlite.connection import SqliteConnection
from memspace.stores.vector_cache import VectorCache


@dataclass(frozen=True)
class SqliteKit:
    db: SqliteConnection
    vectors: VectorCache  # a role whose write changes what a search may show drops a space
