"""On a real Neo4j: the store reports every index with its state (what /readyz, `memspace
doctor` and an import's last line read, tests/unit/test_index_progress.py), an index created
on a store that holds data is listed while it populates and online after, and a writer's
latest memory (read on every add) is found without reading the space's other writers'
memories, however recent they are, and a space's rows are read without the indexed float array
where the float32 vector is there (docs/scaling.md, "A fresh load"); a short id's read seeks
the ids it starts, not every memory of the space, and a space's load reads its retired memories
alone, and a space's documents are counted without reading other spaces'; a space's open
conflicts are read from its own UPDATES edges, and edges written before they carried their space
get it once."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memspace.domain.indexing import ONLINE, IndexProgress
from memspace.domain.models import RelationType
from memspace.domain.ports import WriteBatch
from memspace.stores.cold_scan import HYBRID, KEYWORD, VECTOR
from memspace.stores.neo4j import Neo4jStore
from memspace.stores.neo4j.cypher import cold as cold_cypher
from memspace.stores.neo4j.cypher import directory as directory_cypher
from memspace.stores.neo4j.cypher import memories as memory_cypher
from memspace.stores.neo4j.cypher import relations as relations_cypher
from memspace.stores.neo4j.cypher import search as search_cypher
from memspace.stores.neo4j.relation_backfill import EDGE_SPACES_DONE, backfill_edge_spaces
from tests.support import builders as b

pytestmark = pytest.mark.neo4j


def test_every_index_is_listed_with_its_state(neo4j_store: Neo4jStore) -> None:
    states = {s.name: s for s in neo4j_store.index_states()}
    for name in ("memory_embedding", "memory_index_terms", "memory_space_seq",
                 "memory_space_writer_created"):
        assert states[name].state == ONLINE and states[name].percent == 100.0
    assert IndexProgress.of(list(states.values())).total == len(states)


def test_an_index_created_on_a_store_with_data_is_listed_until_online(
        neo4j_store: Neo4jStore) -> None:
    space = b.space("indexing")
    neo4j_store.directory.create_space(space)
    neo4j_store.writes.write(WriteBatch(space.id, [b.memory(space.id, f"fact {n}")
                                                   for n in range(50)]))
    name = f"probe_{uuid.uuid4().hex[:8]}"
    db = neo4j_store.kit.db
    db.write_one(f"CREATE FULLTEXT INDEX {name} FOR (m:Memory) ON EACH [m.content]")
    try:
        states = neo4j_store.index_states()  # one snapshot: it may come online any moment
        [made] = [s for s in states if s.name == name]
        assert made.state in ("POPULATING", ONLINE) and 0.0 <= made.percent <= 100.0
        if made.state != ONLINE:  # what /readyz then says
            assert name in IndexProgress.of(states).describe()
        db.write_one("CALL db.awaitIndexes(120)")
        [online] = [s for s in neo4j_store.index_states() if s.name == name]
        assert (online.state, online.percent) == (ONLINE, 100.0)
    finally:
        db.write_one(f"DROP INDEX {name} IF EXISTS")


def _rows_read(plan: dict[str, Any]) -> int:
    """Rows the plan's index seeks produced."""
    own = int(plan.get("rows", 0)) if "IndexSeek" in plan["operatorType"] else 0
    return own + sum(_rows_read(child) for child in plan.get("children", []))


def test_a_writers_latest_memory_is_read_without_the_other_writers_recent_ones(
        neo4j_store: Neo4jStore) -> None:
    space = b.space("latest-writer")
    neo4j_store.directory.create_space(space)
    now = datetime.now(UTC)
    loaded = [replace(b.memory(space.id, f"imported fact {n}"), created_by="importer",
                      created_at=now) for n in range(300)]  # a bulk load a moment ago
    neo4j_store.writes.write(WriteBatch(space.id, loaded))
    mine = replace(b.memory(space.id, "my own note"), created_by="agent",
                   created_at=now + timedelta(seconds=1))
    neo4j_store.writes.write(WriteBatch(space.id, [mine]))
    since = now - timedelta(minutes=30)

    latest = neo4j_store.reads.latest_by_writer(space.id, "agent", since)
    assert latest is not None and latest.id == mine.id
    assert neo4j_store.reads.latest_by_writer(space.id, "nobody", since) is None
    _, summary, _ = neo4j_store.kit.db.driver.execute_query(
        "PROFILE " + memory_cypher.LATEST_BY_WRITER, space=space.id, writer="agent",
        since=since)
    assert _rows_read(summary.profile) <= 2  # not the importer's 300


def _details(plan: dict[str, Any]) -> list[str]:
    own = [f"{plan['operatorType']} {plan.get('args', {}).get('Details', '')}"]
    return own + [d for child in plan.get("children", []) for d in _details(child)]


def test_row_reads_take_the_float32_vector_and_the_array_only_without_it(
        neo4j_store: Neo4jStore) -> None:
    space = b.space("row-reads")
    neo4j_store.directory.create_space(space)
    memories = [b.memory(space.id, f"fact {n}", [float(n + 1)] + [0.0] * 383) for n in range(4)]
    neo4j_store.writes.write(WriteBatch(space.id, memories))
    neo4j_store.flush_vector_index(30.0)
    db = neo4j_store.kit.db
    # as an older version stored it: the indexed array alone
    db.write_one("MATCH (m:Memory {id: $id}) REMOVE m.vector", id=memories[0].id)
    for statement in (search_cypher.VECTORS_IN_RANGE, cold_cypher.ROWS_IN_RANGE[HYBRID],
                      cold_cypher.ROWS_IN_RANGE[VECTOR]):
        [row] = db.read(statement, space=space.id, after=0, upto=4)
        vectors = [r[1] for r in row["rows"]]
        assert isinstance(vectors[0], list) and vectors[0][0] == pytest.approx(1.0)
        assert all(isinstance(v, bytes | bytearray) for v in vectors[1:])
        _, summary, _ = db.driver.execute_query("PROFILE " + statement, space=space.id,
                                                after=0, upto=4)
        # the 1.5 KB array is not read ahead for rows that have `vector`
        assert not any(d.startswith("CacheProperties") and "m.embedding" in d
                       for d in _details(summary.profile))
    # a search reads only the columns it scores: no vector for a keyword search, no content
    # for a hybrid one
    [row] = db.read(cold_cypher.ROWS_IN_RANGE[KEYWORD], space=space.id, after=0, upto=4)
    assert [(r[1], r[4]) for r in row["rows"]] == [(None, f"fact {n}") for n in range(4)]
    [row] = db.read(cold_cypher.ROWS_IN_RANGE[HYBRID], space=space.id, after=0, upto=4)
    assert {r[4] for r in row["rows"]} == {""}


def test_a_prefix_read_seeks_the_ids_not_the_space(neo4j_store: Neo4jStore) -> None:
    space = b.space("prefix-reads")
    neo4j_store.directory.create_space(space)
    memories = [replace(b.memory(space.id, f"fact {n}"), id=uuid.uuid4().hex)  # as served
                for n in range(300)]
    neo4j_store.writes.write(WriteBatch(space.id, memories))
    prefixes = [m.id[:8] for m in memories[:3]]
    found = neo4j_store.reads.ids_with_prefix(space.id, prefixes, 4)
    assert {m.id for m in memories[:3]} <= set(found)
    _, summary, _ = neo4j_store.kit.db.driver.execute_query(
        "PROFILE " + memory_cypher.IDS_WITH_PREFIX, space=space.id, prefixes=prefixes, limit=4)
    # a search's answer reads its short ids so: not the space's 300 for each prefix
    assert _rows_read(summary.profile) <= 3 * 4


def test_a_spaces_retired_memories_are_read_without_its_current_ones(
        neo4j_store: Neo4jStore) -> None:
    space = b.space("retired-reads")
    neo4j_store.directory.create_space(space)
    memories = [b.memory(space.id, f"fact {n}") for n in range(300)]
    retired = [replace(m, active=False) for m in memories[:2]]
    neo4j_store.writes.write(WriteBatch(space.id, retired + memories[2:]))
    upto = neo4j_store.search.memory_count(space.id)
    assert len(neo4j_store.search.inactive_seqs(space.id, upto)) == 2
    _, summary, _ = neo4j_store.kit.db.driver.execute_query(
        "PROFILE " + search_cypher.INACTIVE_SEQS, space=space.id, upto=upto)
    assert _rows_read(summary.profile) <= 2  # not the 298 current ones


def test_a_spaces_documents_are_counted_without_the_other_spaces(
        neo4j_store: Neo4jStore) -> None:
    mine, other = b.space("counted-docs"), b.space("other-docs")
    for space in (mine, other):
        neo4j_store.directory.create_space(space)
    for _ in range(2):
        neo4j_store.documents.add_document(b.document(mine.id))
    for _ in range(5):
        neo4j_store.documents.add_document(b.document(other.id))
    assert neo4j_store.directory.space_stats(mine.id).documents == 2
    _, summary, _ = neo4j_store.kit.db.driver.execute_query(
        "PROFILE " + directory_cypher.SPACE_STATS, space=mine.id, known=-1)
    # the space's own documents, from the index: never every document of the store
    assert not any(d.startswith("NodeByLabelScan") for d in _details(summary.profile))
    assert _rows_read(summary.profile) <= 2 + 1  # its two documents and the space


def test_a_spaces_open_conflicts_are_read_from_its_own_edges_not_the_stores(
        neo4j_store: Neo4jStore) -> None:
    mine, other = b.space("open-conflicts"), b.space("busy-updates")
    for space in (mine, other):
        neo4j_store.directory.create_space(space)
    # Another space with many UPDATES edges, every end current: all open conflicts of its own.
    olds = [b.memory(other.id, f"old fact {n}") for n in range(40)]
    news = [b.memory(other.id, f"new fact {n}") for n in range(40)]
    updates = [b.relation(n, o, RelationType.UPDATES) for n, o in zip(news, olds, strict=True)]
    neo4j_store.writes.write(WriteBatch(other.id, olds + news, updates))
    old, new = b.memory(mine.id, "Releases go out on Tuesdays."), b.memory(
        mine.id, "Releases go out on Thursdays.")
    neo4j_store.writes.write(WriteBatch(mine.id, [old, new],
                                        [b.relation(new, old, RelationType.UPDATES)]))

    [found] = neo4j_store.relations.open_conflicts(mine.id, 10)
    assert (found.source_id, found.target_id) == (new.id, old.id)
    assert len(neo4j_store.relations.open_conflicts(other.id, 100)) == 40
    _, summary, _ = neo4j_store.kit.db.driver.execute_query(
        "PROFILE " + relations_cypher.OPEN_CONFLICTS, space=mine.id, limit=10)
    # get_context reads them so on every call: the space's one edge, not the store's 41
    assert not any(d.startswith(("DirectedRelationshipTypeScan", "RelationshipTypeScan",
                                 "AllNodesScan")) for d in _details(summary.profile))
    assert _rows_read(summary.profile) <= 1


def test_edges_written_before_they_carried_their_space_get_it_once(
        neo4j_store: Neo4jStore) -> None:
    space = b.space("edges-before")
    neo4j_store.directory.create_space(space)
    old, new = b.memory(space.id, "The on-call rota is in PagerDuty."), b.memory(
        space.id, "The on-call rota moved to Opsgenie.")
    neo4j_store.writes.write(WriteBatch(space.id, [old, new],
                                        [b.relation(new, old, RelationType.UPDATES)]))
    db = neo4j_store.kit.db
    db.write_one("MATCH (:Memory {id: $id})-[r:UPDATES]->() REMOVE r.spaceId", id=new.id)
    assert neo4j_store.relations.open_conflicts(space.id, 10) == []  # as an older store had it
    db.write_one("MATCH (i:StoreInfo {key: $key}) DETACH DELETE i", key=EDGE_SPACES_DONE)

    assert backfill_edge_spaces(db) >= 1
    [found] = neo4j_store.relations.open_conflicts(space.id, 10)
    assert (found.source_id, found.target_id) == (new.id, old.id)
    assert backfill_edge_spaces(db) == 0  # once per store
