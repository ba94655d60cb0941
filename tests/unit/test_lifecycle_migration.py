"""Migration 14: memories stored before types and statuses become notes in the status their
state means today; an export made before them imports after."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memspace.stores.sqlite import migrations
from tests.unit.conftest import World


def _row(conn: sqlite3.Connection, memory_id: str, active: int, invalidated_by: str | None = None,
         forget_reason: str | None = None) -> None:
    conn.execute(
        "INSERT INTO memories (id, space_id, content, category, active, created_at, created_by, "
        "content_hash, invalidated_by, forget_reason) VALUES (?, 's', ?, 'general', ?, "
        "'2026-01-01T10:00:00.000000Z', 'agent', ?, ?, ?)",
        (memory_id, f"text {memory_id}", active, memory_id, invalidated_by, forget_reason))


def test_existing_memories_become_notes_with_the_status_their_state_means(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    conn.execute("PRAGMA foreign_keys = OFF")
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:13])
        assert migrations.migrate(conn) == 13
    _row(conn, "live", 1)
    _row(conn, "replaced", 0, invalidated_by="live")
    _row(conn, "forgotten", 0, forget_reason="wrong")
    conn.commit()
    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    rows = {r[0]: r[1:] for r in conn.execute(
        "SELECT id, type, status, importance, canonical FROM memories")}
    assert rows == {"live": ("note", "current", 3, 0), "replaced": ("note", "superseded", 3, 0),
                    "forgotten": ("note", "historical", 3, 0)}


def test_an_export_without_types_and_statuses_imports_as_notes_in_todays_status(
        world: World) -> None:
    world.app.admin.create_space("copy")
    app, who = world.app, world.principal({"acme": "rw", "copy": "rw"})
    old = app.memories.add(who, "Billing runs on the first of the month", "acme").memories[0]
    app.memories.correct(who, old.id, "Billing runs on the second of the month", "acme")
    gone = app.memories.add(who, "The staging box is called kiwi", "acme").memories[0]
    app.memories.forget(who, gone.id, reason="decommissioned", space="acme")
    lines = []
    for line in app.portability.export(who, "acme"):
        if line["type"] == "memory":  # as exported before types and statuses
            for key in ("memoryType", "status", "importance", "canonical"):
                del line[key]
        lines.append(json.dumps(line))

    app.portability.import_space(who, "copy", lines, new_ids=True)

    _, page = app.memories.list(who, "copy", include_inactive=True, limit=10)
    by_text = {m.content: (m.type.value, m.status.value, m.superseded_by is not None)
               for m in page.items}
    assert by_text == {
        "Billing runs on the first of the month": ("note", "superseded", True),
        "Billing runs on the second of the month": ("note", "current", False),
        "The staging box is called kiwi": ("note", "historical", False)}
