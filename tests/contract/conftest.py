"""One `store` fixture, parametrised over every GraphStore: the contract runs on each alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.ports import GraphStore


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    made: GraphStore
    if request.param == "sqlite":
        from memspace.stores.sqlite import SqliteStore

        made = SqliteStore(tmp_path / "contract.db")
    else:
        from memspace.stores.neo4j import Neo4jStore

        made = Neo4jStore(request.getfixturevalue("neo4j_uri"))
    yield made
    made.close()
