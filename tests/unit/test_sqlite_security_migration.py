"""Migration 14 (issue 38): a store from before it migrates, its memories read back with an
inferred provenance and no flag, and its spaces have the default policy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memspace.domain.models import MemoryFilter, ProvenanceKind, provenance_of
from memspace.domain.security import SpacePolicy
from memspace.stores.sqlite import SqliteStore, migrations
from memspace.stores.sqlite.security import SqliteSecurity


def test_a_store_from_before_migration_14_migrates_and_infers_provenance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:13])
        assert migrations.migrate(conn) == 13
    conn.execute("INSERT INTO spaces (id, slug, name, description, created_at, last_active_at) "
                 "VALUES ('s', 'team', 'team', '', '2026-01-01T00:00:00.000000', "
                 "'2026-01-01T00:00:00.000000')")
    for memory_id, writer, document in (("a", "cli:ana", None), ("b", "ci-bot", None),
                                        ("c", "ci-bot", "doc1")):
        conn.execute(
            "INSERT INTO memories (id, space_id, content, category, active, created_at, "
            "created_by, content_hash, document_id) VALUES (?, 's', ?, 'note', 1, "
            "'2026-01-01T10:00:00.000000', ?, ?, ?)",
            (memory_id, f"fact {memory_id}", writer, memory_id, document))
    conn.commit()
    conn.close()
    store = SqliteStore(path)
    try:
        rows = {m.id: m for m in store.reads.list_memories(MemoryFilter("s"), 10)}
        assert {i: provenance_of(m).kind for i, m in rows.items()} == {
            "a": ProvenanceKind.HUMAN, "b": ProvenanceKind.AGENT, "c": ProvenanceKind.DOCUMENT}
        assert all(m.provenance is None and m.suspicious is None for m in rows.values())
        assert SqliteSecurity(store.kit).get_space_policy("s") == SpacePolicy()
    finally:
        store.close()
