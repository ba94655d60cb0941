"""Types, statuses and status marks on every store (domain/lifecycle.py, LifecycleStore)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from memspace.domain.errors import Conflict, NotFound, StaleVersion
from memspace.domain.graph_port import GraphStore
from memspace.domain.lifecycle import MemoryStatus, MemoryType
from memspace.domain.models import MemoryFilter, RelationType
from memspace.domain.ports import WriteBatch
from tests.support import builders as b

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _space(store: GraphStore) -> str:
    space = b.space()
    store.directory.create_space(space)
    return space.id


def test_type_importance_and_canonical_read_back_as_written(store: GraphStore) -> None:
    sid = _space(store)
    typed = replace(b.memory(sid, "Deploys need two approvals"), type=MemoryType.CONSTRAINT,
                    importance=5, canonical=True)
    plain = b.memory(sid, "The office plant is a fern")
    store.writes.write(WriteBatch(sid, [typed, plain]))

    assert store.reads.get_memory(sid, typed.id) == typed
    got = store.reads.get_memory(sid, plain.id)
    assert got is not None
    assert (got.type, got.status, got.importance, got.canonical) == (
        MemoryType.NOTE, MemoryStatus.CURRENT, 3, False)


def test_a_correction_leaves_the_old_one_superseded_pointing_at_the_new(store: GraphStore) -> None:
    sid = _space(store)
    old = b.memory(sid, "We ship on Fridays")
    store.writes.write(WriteBatch(sid, [old]))
    new = b.memory(sid, "We ship on Thursdays")
    store.writes.write(WriteBatch(sid, [new], [b.relation(new, old, RelationType.UPDATES)],
                           {old.id: new.id}))

    got = store.reads.get_memory(sid, old.id)
    assert got is not None and (got.status, got.superseded_by) == (MemoryStatus.SUPERSEDED, new.id)
    gone = store.writes.forget(sid, new.id, "no longer shipping", "test", AT)
    assert (gone.status, gone.superseded_by) == (MemoryStatus.HISTORICAL, None)


def test_listing_filters_by_type_and_status(store: GraphStore) -> None:
    sid = _space(store)
    decision = replace(b.memory(sid, "Postgres is the database"), type=MemoryType.DECISION)
    task = replace(b.memory(sid, "Write the migration guide"), type=MemoryType.TASK)
    old = replace(b.memory(sid, "MySQL is the database"), type=MemoryType.DECISION)
    store.writes.write(WriteBatch(sid, [decision, task, old]))
    fix = replace(b.memory(sid, "MariaDB is the database"), type=MemoryType.DECISION)
    store.writes.write(WriteBatch(sid, [fix], [b.relation(fix, old, RelationType.UPDATES)], {old.id: fix.id}))

    def ids(**filters: object) -> set[str]:
        return {m.id for m in store.reads.list_memories(MemoryFilter(sid, **filters), 50)}  # type: ignore[arg-type]

    assert ids(types=(MemoryType.DECISION,)) == {decision.id, fix.id}
    assert ids(types=(MemoryType.DECISION, MemoryType.TASK)) == {decision.id, fix.id, task.id}
    assert ids(statuses=(MemoryStatus.SUPERSEDED,)) == {old.id}
    assert ids(types=(MemoryType.TASK,), statuses=(MemoryStatus.SUPERSEDED,)) == set()


def test_a_mark_sets_the_status_bumps_the_version_and_records_who_when_why(
        store: GraphStore) -> None:
    marks = store.marks
    sid = _space(store)
    memory = replace(b.memory(sid, "The cache holds 10 minutes"), type=MemoryType.FACT)
    store.writes.write(WriteBatch(sid, [memory]))
    store_version = store.directory.space_stats(sid).version

    marked = marks.mark(sid, memory.id, MemoryStatus.DISPUTED, "the load test disagrees",
                        "agent-a", AT, expected_version=1)
    back = marks.mark(sid, memory.id, MemoryStatus.CURRENT, "load test was misconfigured",
                      "agent-b", AT.replace(hour=10))

    assert (marked.status, marked.version, back.status, back.version) == (
        MemoryStatus.DISPUTED, 2, MemoryStatus.CURRENT, 3)
    assert back.type is MemoryType.FACT and back.active
    history = marks.marks_of(sid, [memory.id])
    assert [(r.version, r.status, r.reason, r.by, r.at) for r in history] == [
        (2, "disputed", "the load test disagrees", "agent-a", AT),
        (3, "current", "load test was misconfigured", "agent-b", AT.replace(hour=10))]
    assert store.directory.space_stats(sid).version > store_version  # the change feed sees it
    changes = store.reads.list_changes(MemoryFilter(sid), 10)
    assert [c.memory.id for c in changes] == [memory.id]


def test_a_mark_refuses_a_stale_version_a_superseded_memory_and_a_foreign_one(
        store: GraphStore) -> None:
    marks = store.marks
    sid, other = _space(store), _space(store)
    memory = b.memory(sid, "Retries back off to 30 s")
    store.writes.write(WriteBatch(sid, [memory]))
    marks.mark(sid, memory.id, MemoryStatus.DISPUTED, "doubt", "a", AT)

    with pytest.raises(StaleVersion):
        marks.mark(sid, memory.id, MemoryStatus.HISTORICAL, "late", "b", AT, expected_version=1)
    with pytest.raises(NotFound):
        marks.mark(other, memory.id, MemoryStatus.HISTORICAL, "not yours", "b", AT)
    new = b.memory(sid, "Retries back off to 60 s")
    store.writes.write(WriteBatch(sid, [new], [b.relation(new, memory, RelationType.UPDATES)],
                           {memory.id: new.id}))
    with pytest.raises(Conflict):
        marks.mark(sid, memory.id, MemoryStatus.CURRENT, "revive", "b", AT)
    assert [r.status for r in marks.marks_of(sid, [memory.id])] == ["disputed"]
    assert marks.marks_of(other, [memory.id]) == []


@pytest.mark.neo4j
def test_neo4j_memories_stored_before_statuses_get_them_at_start(neo4j_store: object) -> None:
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j import lifecycle_backfill as neo4j_memories

    assert isinstance(neo4j_store, Neo4jStore)
    sid = _space(neo4j_store)
    live, replaced, forgotten = (b.memory(sid, t) for t in ("live one", "replaced one", "gone one"))
    neo4j_store.writes.write(WriteBatch(sid, [live, replaced, forgotten]))
    neo4j_store.writes.write(WriteBatch(sid, [], supersede={replaced.id: live.id}))
    neo4j_store.writes.forget(sid, forgotten.id, "wrong", "test", AT)
    # As an older version left them: no type, status, importance or canonical.
    neo4j_store.kit.db.write(lambda tx: tx.run(
        "MATCH (m:Memory {spaceId: $space}) REMOVE m.type, m.status, m.importance, m.canonical",
        space=sid).consume())

    assert neo4j_memories.backfill_lifecycle(neo4j_store.kit.db, space=sid) == 3
    rows = neo4j_store.kit.db.read(
        "MATCH (m:Memory {spaceId: $space}) RETURN m.id AS id, m.type AS type, "
        "m.status AS status", space=sid)
    assert {r["id"]: (r["type"], r["status"]) for r in rows} == {
        live.id: ("note", "current"), replaced.id: ("note", "superseded"),
        forgotten.id: ("note", "historical")}
    assert neo4j_memories.backfill_lifecycle(neo4j_store.kit.db, space=sid) == 0
