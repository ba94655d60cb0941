"""Valid time for memories stored before it (docs/time.md): SQLite's migration 17 and Neo4j's
start-up backfill derive what a write now sets itself."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memspace.domain.models import RelationType
from memspace.domain.ports import WriteBatch
from memspace.stores.sqlite import migrations
from tests.support import builders as b

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _row(conn: sqlite3.Connection, memory_id: str, created: str, observed: str | None = None,
         invalidated_by: str | None = None, forgotten: bool = False) -> None:
    conn.execute(
        "INSERT INTO memories (id, space_id, content, category, active, created_at, created_by, "
        "content_hash, observed_at, invalidated_by, invalidated_at, forget_reason, forgotten_by) "
        "VALUES (?, 's', ?, 'general', ?, ?, 'agent', ?, ?, ?, ?, ?, ?)",
        (memory_id, f"text {memory_id}", int(invalidated_by is None and not forgotten), created,
         memory_id, observed, invalidated_by,
         "2026-01-09T00:00:00.000000Z" if invalidated_by or forgotten else None,
         "wrong" if forgotten else None, "agent" if forgotten else None))


def test_sqlite_migration_17_derives_both_ends(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    conn.execute("PRAGMA foreign_keys = OFF")
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:16])
        assert migrations.migrate(conn) == 16
    _row(conn, "first", "2026-01-01T10:00:00.000000Z", observed="2025-12-31T23:30:00+02:00",
         invalidated_by="second")
    _row(conn, "second", "2026-01-05T10:00:00.000000Z", observed="2026-01-03T08:00:00")
    _row(conn, "plain", "2026-01-02T10:00:00.000000Z")
    _row(conn, "gone", "2026-01-02T11:00:00.000000Z", forgotten=True)
    conn.commit()
    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    rows = {r[0]: r[1:] for r in conn.execute("SELECT id, valid_from, valid_to FROM memories")}
    assert rows == {
        "first": ("2025-12-31T21:30:00.000000Z", "2026-01-03T08:00:00.000000Z"),
        "second": ("2026-01-03T08:00:00.000000Z", None),
        "plain": ("2026-01-02T10:00:00.000000Z", None),
        "gone": ("2026-01-02T11:00:00.000000Z", None),
    }


@pytest.mark.neo4j
def test_neo4j_memories_stored_before_valid_time_get_it_at_start(neo4j_store: object) -> None:
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.valid_time_backfill import backfill_valid_time

    assert isinstance(neo4j_store, Neo4jStore)
    space = b.space()
    neo4j_store.directory.create_space(space)
    sid = space.id
    observed = datetime(2026, 2, 1, 12, 0, tzinfo=timezone(timedelta(hours=-5)))
    old = replace(b.memory(sid, "The cache holds 5 minutes"), observed_at=observed)
    new = b.memory(sid, "The cache holds 10 minutes")
    gone = b.memory(sid, "The door code is 4321")
    neo4j_store.writes.write(WriteBatch(sid, [old, gone]))
    neo4j_store.writes.write(WriteBatch(sid, [new], [b.relation(new, old, RelationType.UPDATES)],
                                 {old.id: new.id}, at=new.created_at))
    neo4j_store.writes.forget(sid, gone.id, "wrong", "test", AT)
    written = {m.id: (m.valid_from, m.valid_to) for m in
               (neo4j_store.reads.get_memory(sid, i) for i in (old.id, new.id, gone.id)) if m}
    assert written[old.id] == (observed.astimezone(UTC), new.created_at)
    # As an older version left them: no valid time at all.
    neo4j_store.kit.db.write(lambda tx: tx.run(
        "MATCH (m:Memory {spaceId: $space}) REMOVE m.validFrom, m.validTo", space=sid).consume())

    assert backfill_valid_time(neo4j_store.kit.db, space=sid) == 4  # three starts, one end
    again = {m.id: (m.valid_from, m.valid_to) for m in
             (neo4j_store.reads.get_memory(sid, i) for i in (old.id, new.id, gone.id)) if m}
    assert again == written
    assert backfill_valid_time(neo4j_store.kit.db, space=sid) == 0
