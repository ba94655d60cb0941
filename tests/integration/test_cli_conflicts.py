"""`memspace conflicts list|resolve` as a user runs them, on the demo's queue (an embedded store
in a fresh data folder, the real embedding model), and migration 18 on a store made before it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memspace.stores.sqlite import migrations

pytestmark = pytest.mark.model


def test_the_demo_queue_is_listed_and_settled_from_the_cli(run) -> None:  # type: ignore[no-untyped-def]
    assert run("seed").exit_code == 0
    listed = run("conflicts", "list", "-s", "support")
    assert listed.exit_code == 0, listed.output
    assert "2 open conflicts in 'support'" in listed.stdout
    assert "[contradiction]" in listed.stdout and "[suggested_update]" in listed.stdout
    page = json.loads(run("conflicts", "list", "-s", "support", "--json").stdout)
    clash = next(c for c in page["conflicts"] if c["kind"] == "contradiction")
    newer, older = (s["id"] for s in clash["sides"])

    wrong = run("conflicts", "resolve", clash["id"], "-s", "support", "--keep", "nope",
                "--reason", "x")
    assert wrong.exit_code == 1 and "is not a side" in wrong.output
    stale = run("conflicts", "resolve", clash["id"], "-s", "support", "--keep", newer,
                "--supersede", older, "--reason", "x", "--version", "0" * 16)
    assert stale.exit_code == 1 and "changed since you listed it" in stale.output
    done = run("conflicts", "resolve", clash["id"], "-s", "support", "--keep", newer,
               "--supersede", older, "--reason", "the desk opens on holidays since 2026",
               "--version", clash["version"], "--json")
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["kept"]["id"] == newer and answer["resolvedBy"] == "cli:operator"
    assert [(m["id"], m["status"]) for m in answer["superseded"]] == [(older, "superseded")]
    after = json.loads(run("conflicts", "list", "-s", "support", "--json").stdout)
    assert [c["kind"] for c in after["conflicts"]] == ["suggested_update"] and after["open"] == 1


def test_a_store_made_before_migration_18_gets_the_table_and_keeps_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:16])
        assert migrations.migrate(conn) == 16
    conn.execute("INSERT INTO spaces (id, slug, name, created_at, last_active_at) VALUES "
                 "('s', 'old', 'Old', '2026-01-01T10:00:00.000000Z', '2026-01-01T10:00:00.000000Z')")
    conn.commit()
    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "conflicts" in tables
    assert conn.execute("SELECT slug FROM spaces").fetchall() == [("old",)]
    assert migrations.migrate(conn) == len(migrations.MIGRATIONS)  # again: nothing to do
