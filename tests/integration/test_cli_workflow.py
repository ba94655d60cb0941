"""`memspace context` and `memspace handoff save|latest|list`, run as a user (or a hook) runs
them: the CLI on an embedded store in a fresh data folder, the real embedding model."""

from __future__ import annotations

import json

import pytest

from memspace.llm.tokens import TokenCounter

pytestmark = pytest.mark.model


def test_a_handoff_saved_from_the_cli_is_what_latest_and_context_show(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    none = run("handoff", "latest", "--space", "team")
    assert none.exit_code == 0 and "No handoff in 'team' yet." in none.stdout
    assert run("add", "Releases are cut on Mondays", "--space", "team").exit_code == 0
    saved = run("handoff", "save", "--space", "team", "--agent", "claude", "--topic", "release",
                "--summary", "Release notes drafted", "--done", "notes", "--next", "tag it",
                "--next", "announce", "--question", "who signs off?", "--link", "NOTES.md")
    assert saved.exit_code == 0, saved.output
    latest = run("handoff", "latest", "--space", "team")
    assert latest.exit_code == 0
    assert "from claude on 'release'" in latest.stdout
    assert "│ tag it\n  │ announce" in latest.stdout and "who signs off?" in latest.stdout
    listed = json.loads(run("handoff", "list", "--space", "team", "--json").stdout)
    assert [h["agent"] for h in listed["handoffs"]] == ["claude"]
    assert listed["handoffs"][0]["createdBy"] == "cli:operator"
    text = run("context", "--space", "team", "--detail", "lean").stdout
    assert text.index("## Latest handoff") < text.index("Releases are cut on Mondays")
    meta = json.loads(run("context", "--space", "team", "--max-tokens", "300", "--json").stdout)
    assert meta["meta"]["budget"] == 300
    assert TokenCounter().count(meta["context"]) == meta["meta"]["spent"] <= 300


def test_cli_refusals_say_what_to_change(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    empty = run("handoff", "save", "--space", "team", "--summary", " ")
    assert empty.exit_code == 1 and "summary is empty" in empty.output
    level = run("context", "--space", "team", "--detail", "verbose")
    assert level.exit_code == 1 and "lean, balanced, deep" in level.output
