"""Build each GraphStore for tests, so every suite parametrises over the same list."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.graph_port import GraphStore
from memspace.domain.search_paths import ColdSearch
from memspace.startup.container import build_search_paths
from memspace.startup.settings import Settings

# A test's Neo4jStore waits longer for the server than a deployed one (3 s a connection, 5 s in
# all): on a loaded 2-core machine, a starved JVM took over 4 s to hand out one connection and
# failed a fixture (the outage tests, which test these windows, set their own).
PATIENT = {"connect_timeout_s": 20.0, "retry_window_s": 60.0}
PATIENT_SETTINGS = {"neo4j_connect_timeout_s": 20.0, "neo4j_retry_window_s": 60.0}

# Parametrise a fixture with these to run a test once per store.
STORE_PARAMS = ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)]


def make_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> GraphStore:
    if kind == "sqlite":
        from memspace.stores.sqlite import SqliteStore

        return SqliteStore(tmp_path / "memspace.db")
    from memspace.stores.neo4j import Neo4jStore

    return Neo4jStore(request.getfixturevalue("neo4j_uri"), **PATIENT)


def cold_search(store: GraphStore) -> ColdSearch:
    """The store's cold path (docs/scaling.md), as a server whose cache holds no space runs it."""
    _, cold = build_search_paths(Settings(cache_mb=0), store)
    assert cold is not None
    return cold
