"""On a real Neo4j: a property no node has stored yet reads as null, and the server's notice
for a name it does not know stays out of the log (every API key lookup logged one, on a store
whose keys never had `toolsets`)."""

from __future__ import annotations

import logging
import uuid

import pytest

from memspace.stores.neo4j import Neo4jStore

pytestmark = pytest.mark.neo4j


def test_a_property_never_stored_reads_as_null_without_a_notice(
        neo4j_store: Neo4jStore, caplog: pytest.LogCaptureFixture) -> None:
    name = f"never_{uuid.uuid4().hex}"
    with caplog.at_level(logging.INFO):
        rows = neo4j_store.kit.db.read(
            f"OPTIONAL MATCH (s:Space) WITH s LIMIT 1 RETURN s.{name} AS v")
    assert [r["v"] for r in rows] == [None]
    assert [r.getMessage() for r in caplog.records if name in r.getMessage()] == []
