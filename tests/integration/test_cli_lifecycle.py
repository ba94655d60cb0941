"""`memspace add --type`, `list`, `search --type/--status`, `mark` and `space set`, run as a user
runs them: the CLI on an embedded store in a fresh data folder, the real embedding model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.model


def test_types_statuses_marks_and_instructions_from_the_cli(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    rules = tmp_path / "AGENTS.md"
    rules.write_text("Run the linters before you commit.\n", encoding="utf-8")
    assert run("space", "set", "team", "--instructions", str(rules)).exit_code == 0
    added = run("add", "Postgres is the primary database", "-s", "team", "--type", "decision",
                "--importance", "5", "--json")
    assert added.exit_code == 0, added.output
    memory = json.loads(added.stdout)["memories"][0]
    assert (memory["type"], memory["status"], memory["importance"]) == ("decision", "current", 5)
    reversed_ = run("add", "MySQL is the primary database", "-s", "team", "--type", "decision")
    assert reversed_.exit_code == 1 and reversed_.output.startswith("error: nothing saved")
    assert f"--supersedes {memory['id']}" in reversed_.output and "--force" in reversed_.output
    run("add", "Buy more coffee", "-s", "team", "--type", "task")

    marked = run("mark", memory["id"], "disputed", "--reason", "ops prefers MySQL", "-s", "team")
    assert marked.exit_code == 0 and "current -> disputed" in marked.stdout
    listed = json.loads(run("list", "-s", "team", "--status", "disputed", "--json").stdout)
    assert [m["id"] for m in listed["memories"]] == [memory["id"]]
    found = json.loads(run("search", "database", "-s", "team", "--type", "task", "--json").stdout)
    assert [r["content"] for r in found["results"]] == ["Buy more coffee"]
    wrong = run("mark", memory["id"], "superseded", "--reason", "x", "-s", "team")
    assert wrong.exit_code == 1 and "set by writes" in wrong.output
    context = run("context", "-s", "team")
    assert "Run the linters before you commit." in context.stdout
