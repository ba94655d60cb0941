"""Neo4j's vector index gets every memory's embedding after the write that stored it
(stores/neo4j/vector_index.py): plain adds, grouped adds and corrections alike, and a memory
left unindexed by a stop is indexed by the next start."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memspace.domain.models import Memory
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from memspace.stores.neo4j.memories import INDEX_IN_THE_WRITE
from memspace.stores.neo4j.schema import TEXT_INDEX, VECTOR_INDEX
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import PATIENT

pytestmark = pytest.mark.neo4j
EMBED = HashEmbedder()


def _query(store: Neo4jStore, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return store.kit.db.read(cypher, **params)


def _indexed(store: Neo4jStore, memory: Memory) -> list[float] | None:
    [row] = _query(store, "MATCH (m:Memory {id: $id}) RETURN m.embedding AS e", id=memory.id)
    return None if row["e"] is None else list(row["e"])


def _nearest(store: Neo4jStore, embedding: list[float], space_id: str) -> list[str]:
    """What ad-hoc Cypher finds through the index, within the space."""
    rows = _query(store, f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', 200, $v) "
                         "YIELD node, score WHERE node.spaceId = $space RETURN node.id AS id",
                  v=embedding, space=space_id)
    return [r["id"] for r in rows]


def test_every_write_reaches_the_vector_index(neo4j_store: Neo4jStore) -> None:
    space = b.space("vector-index")
    neo4j_store.directory.create_space(space)
    plain = b.memory(space.id, "Deploys need two approvals", EMBED.embed(["deploys approvals"])[0])
    neo4j_store.writes.write(WriteBatch(space.id, [plain]))  # a plain add: the group commit
    bulk = [b.memory(space.id, f"bulk fact {n}", EMBED.embed([f"bulk fact {n}"])[0])
            for n in range(3)]
    neo4j_store.writes.write(WriteBatch(space.id, bulk))
    fixed = b.memory(space.id, "Deploys need three approvals",
                     EMBED.embed(["deploys three approvals"])[0])
    neo4j_store.writes.write(WriteBatch(space.id, [fixed], supersede={plain.id: fixed.id}))
    no_vector = b.memory(space.id, "a memory without a vector")
    neo4j_store.writes.write(WriteBatch(space.id, [no_vector]))

    assert neo4j_store.flush_vector_index(60)
    pending = _query(neo4j_store, "MATCH (m:Memory) WHERE m.spaceId = $space "
                                  "AND m.vectorPending IS NOT NULL RETURN m.id AS id",
                     space=space.id)
    assert pending == []  # every mark cleared
    for memory in [plain, *bulk, fixed]:
        assert memory.embedding is not None
        stored = _indexed(neo4j_store, memory)
        assert stored == pytest.approx(np.asarray(memory.embedding, dtype=np.float32).tolist())
        assert memory.id in _nearest(neo4j_store, memory.embedding, space.id)
    assert _indexed(neo4j_store, no_vector) is None


def test_a_memory_left_unindexed_by_a_stop_is_indexed_at_the_next_start(
        neo4j_uri: str, neo4j_store: Neo4jStore) -> None:
    space = b.space("vector-index-stop")
    neo4j_store.directory.create_space(space)
    memory = b.memory(space.id, "The ledger export runs nightly", EMBED.embed(["ledger export"])[0])
    neo4j_store.writes.write(WriteBatch(space.id, [memory]))
    assert neo4j_store.flush_vector_index(60)
    # what a write leaves when the process stops before its feed runs
    neo4j_store.kit.db.write(lambda tx: tx.run(
        "MATCH (m:Memory {id: $id}) REMOVE m.embedding SET m.vectorPending = true",
        id=memory.id).consume())
    assert _indexed(neo4j_store, memory) is None

    restarted = Neo4jStore(neo4j_uri, **PATIENT)
    try:
        assert restarted.flush_vector_index(120)
        assert memory.embedding is not None
        assert _indexed(restarted, memory) == pytest.approx(memory.embedding, abs=1e-6)
        assert memory.id in _nearest(restarted, memory.embedding, space.id)
    finally:
        restarted.close()


def test_the_full_text_index_serves_ad_hoc_cypher_after_the_commit(neo4j_store: Neo4jStore) -> None:
    # memspace's keyword search runs in process (stores/keyword_index.py); the index is kept,
    # eventually consistent, for queries teams write themselves
    space = b.space("text-index")
    neo4j_store.directory.create_space(space)
    memory = b.memory(space.id, "The ledger export runs nightly", EMBED.embed(["ledger"])[0])
    neo4j_store.writes.write(WriteBatch(space.id, [memory]))
    [config] = _query(neo4j_store, "SHOW FULLTEXT INDEXES YIELD name, options "
                                   "WHERE name = $name RETURN options.indexConfig AS c",
                      name=TEXT_INDEX)
    assert config["c"]["fulltext.eventually_consistent"] is True
    neo4j_store.kit.db.write(lambda tx: tx.run(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()").consume())
    rows = _query(neo4j_store, f"CALL db.index.fulltext.queryNodes('{TEXT_INDEX}', $q) "
                               "YIELD node RETURN node.id AS id",
                  q=f'+spaceId:"{space.id}" +content:ledgr~1')
    assert [r["id"] for r in rows] == [memory.id]


def test_a_bulk_batch_is_indexed_by_its_own_write(neo4j_store: Neo4jStore) -> None:
    space = b.space("vector-index-bulk")
    neo4j_store.directory.create_space(space)
    bulk = [b.memory(space.id, f"imported fact {n}", EMBED.embed([f"imported fact {n}"])[0])
            for n in range(INDEX_IN_THE_WRITE)]
    neo4j_store.writes.write(WriteBatch(space.id, bulk))
    # no flush of the feed: the write itself set every embedding, and left no mark
    rows = _query(neo4j_store, "MATCH (m:Memory) WHERE m.spaceId = $space "
                               "RETURN m.id AS id, m.embedding IS NOT NULL AS indexed, "
                               "m.vectorPending IS NOT NULL AS marked", space=space.id)
    assert len(rows) == len(bulk)
    assert all(r["indexed"] and not r["marked"] for r in rows)
    assert bulk[7].embedding is not None
    assert _indexed(neo4j_store, bulk[7]) == pytest.approx(
        np.asarray(bulk[7].embedding, dtype=np.float32).tolist())
    assert bulk[7].id in _nearest(neo4j_store, bulk[7].embedding, space.id)
