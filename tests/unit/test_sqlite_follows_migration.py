"""Migration 11 gives turns saved before it the id of the turn they continue."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memspace.stores.sqlite import migrations


def _row(conn: sqlite3.Connection, memory_id: str, content: str, at: str, writer: str = "agent",
         context: str | None = None, document: str | None = None, speaker: str = "Ann") -> None:
    conn.execute(
        "INSERT INTO memories (id, space_id, content, category, active, created_at, created_by, "
        "content_hash, document_id, speaker, context) VALUES (?, 's', ?, 'note', 1, ?, ?, ?, ?, ?, ?)",
        (memory_id, content, at, writer, memory_id, document, speaker, context))


def test_turns_saved_before_the_column_get_the_turn_their_context_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    conn.execute("PRAGMA foreign_keys = OFF")
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:10])
        assert migrations.migrate(conn) == 10
    long_turn = "x" * 500
    _row(conn, "a", "Ann: hello", "2026-01-01T10:00:00.000000")
    _row(conn, "b", "Bob: hi Ann", "2026-01-01T10:00:01.000000", context="Ann: hello")
    _row(conn, "other", "Cy: elsewhere", "2026-01-01T10:00:02.000000", writer="another")
    _row(conn, "c", long_turn, "2026-01-01T10:00:03.000000", context="Bob: hi Ann")
    _row(conn, "d", "Ann: so long", "2026-01-01T10:00:04.000000", context="…" + long_turn[-400:])
    # the writer's latest memory before "e" is "d", whose content is not e's context
    _row(conn, "e", "Bob: what?", "2026-01-01T10:00:05.000000", context="something else")
    _row(conn, "f", "Ann: no context", "2026-01-01T10:00:06.000000")
    _row(conn, "g", "a chunk", "2026-01-01T10:00:07.000000", context="Ann: no context",
         document="doc")
    conn.commit()
    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    follows = dict(conn.execute("SELECT id, follows FROM memories").fetchall())
    assert follows == {"a": None, "b": "a", "other": None, "c": "b", "d": "c", "e": None,
                       "f": None, "g": None}
