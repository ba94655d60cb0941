"""What a newcomer reads in the terminal: the verbs' listing, and the way out of a space that
does not exist (the CLI's words, not the MCP tools')."""

from __future__ import annotations

import inspect
import json

import pytest
import typer
import typer.rich_utils
import typer.testing

from memspace.cli.main import app


def test_an_unknown_space_says_how_to_list_and_make_spaces_and_nothing_is_written(run) -> None:  # type: ignore[no-untyped-def]
    for verb in (["add", "Deploys need two approvals", "--space", "team"],
                 ["search", "deploys", "--space", "team"], ["list", "--space", "team"]):
        refused = run(*verb)
        assert refused.exit_code == 1
        assert "space 'team' not found" in refused.output
        assert "`memspace space list`" in refused.output
        assert "`memspace space create team`" in refused.output
        assert "listSpaces" not in refused.output  # an MCP tool: nothing to call from a shell
    assert run("space", "list").stdout.startswith("No spaces yet")
    assert run("space", "create", "team").exit_code == 0
    assert run("add", "Deploys need two approvals", "--space", "team").exit_code == 0
    assert "1 result in space 'team'" in run("search", "deploys", "--space", "team").stdout


def _commands(group, path: str = "memspace"):  # type: ignore[no-untyped-def]
    """Every verb under a group (Typer's own click), as (path, name, command)."""
    for name, sub in group.commands.items():
        yield f"{path} {name}", name, sub
        if hasattr(sub, "commands"):
            yield from _commands(sub, f"{path} {name}")


def test_every_verb_is_listed_with_its_whole_summary_on_unbroken_rows(  # type: ignore[no-untyped-def]
        run, monkeypatch: pytest.MonkeyPatch) -> None:
    # Wide enough for every row; typer's own width (TERMINAL_WIDTH, read once at its import)
    # would otherwise win over COLUMNS.
    monkeypatch.setattr(typer.rich_utils, "MAX_WIDTH", 1000)
    root = typer.main.get_command(app)
    seen = 0
    for where, name, sub in _commands(root):
        summary = " ".join(inspect.cleandoc(sub.help or "").split("\n\n")[0].split())
        parent = where.split()[1:-1]
        listing = typer.testing.CliRunner().invoke(app, [*parent, "--help"],
                                                   env={"COLUMNS": "1000"}).stdout
        row = next((line for line in listing.splitlines() if f"│ {name} " in line), "")
        assert summary and summary in row, (where, summary, row)  # one row, the whole sentence
        seen += 1
    assert seen > 30
    top = run("--help").stdout
    order = [top.index(panel) for panel in ("Run and connect", "Memories", "Documents and code",
                                            "Spaces and access")]
    assert order == sorted(order)


def test_a_key_carries_its_toolsets_and_an_unknown_name_is_refused(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "team").exit_code == 0
    made = run("key", "create", "--name", "reviewer", "--grant", "team:rw",
               "--toolsets", "review,history", "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["toolsets"] == ["history", "review"]
    listed = run("key", "list")
    assert "reviewer" in listed.output and "toolsets history,review" in listed.output
    plain = run("key", "create", "--name", "plain", "--grant", "team:r", "--json")
    assert json.loads(plain.output)["toolsets"] is None
    refused = run("key", "create", "--name", "typo", "--grant", "team:r", "--toolsets", "reviews")
    assert refused.exit_code == 1
    assert "unknown toolset 'reviews'" in refused.output and "history" in refused.output
    assert "typo" not in run("key", "list").output  # nothing stored
