"""Build each GraphStore for tests, so every suite parametrises over the same list."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.ports import GraphStore

# Parametrise a fixture with these to run a test once per store.
STORE_PARAMS = ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)]


def make_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> GraphStore:
    if kind == "sqlite":
        from memspace.stores.sqlite import SqliteStore

        return SqliteStore(tmp_path / "memspace.db")
    from memspace.stores.neo4j import Neo4jStore

    return Neo4jStore(request.getfixturevalue("neo4j_uri"))
