"""The tests' Neo4j discovery (tests/support/neo4j_server.py) uses a server already on the port
only when tools/neo4j-local runs it: any other auth-less Neo4j there may hold real data."""

from __future__ import annotations

import pytest

from tests.support import neo4j_server as discovery


@pytest.fixture
def local_tools(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("MEMSPACE_TEST_NEO4J_URI", raising=False)
    monkeypatch.delenv("NEO4J_LOCAL_PORT", raising=False)
    monkeypatch.setattr(discovery, "_start_container", lambda tried: None)
    monkeypatch.setattr(discovery.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(discovery, "_bolt_problem", lambda uri: None)  # something answers
    return monkeypatch


def test_a_foreign_server_on_the_port_is_refused_with_what_to_do(local_tools: pytest.MonkeyPatch) -> None:
    local_tools.setattr(discovery, "_data_directory", lambda uri: "/var/lib/neo4j/data")
    with pytest.raises(discovery.Neo4jUnavailable, match="MEMSPACE_TEST_NEO4J_URI"), \
            discovery.neo4j_server():
        pass


def test_a_neo4j_local_server_on_the_port_is_used(local_tools: pytest.MonkeyPatch) -> None:
    local_tools.setattr(discovery, "_data_directory",
                        lambda uri: "/src/memspace/tools/neo4j-local/data/data")
    with discovery.neo4j_server() as uri:
        assert uri == "bolt://127.0.0.1:7687"
