"""The CLI speaks CLI: its refusals exit 1 and name its own verbs and flags, never an MCP tool,
and every verb's help shows plain types and whole option names in 80 columns."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer
import typer.rich_utils
from typer.core import TyperGroup
from typer.testing import CliRunner, Result

from memspace.cli import common as cli_common
from memspace.cli.main import app
from memspace.mcp.server import build_mcp_server
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock

Run = Callable[..., Result]


def commands() -> Iterator[tuple[list[str], typer.core.TyperCommand]]:
    def walk(group: TyperGroup, path: list[str]) -> Iterator[tuple[list[str], typer.core.TyperCommand]]:
        for name, command in group.commands.items():
            if isinstance(command, TyperGroup):
                yield from walk(command, [*path, name])
            else:
                yield [*path, name], command  # type: ignore[misc]

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    yield from walk(root, [])


def tool_names() -> set[str]:
    container = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                      embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    try:
        return {tool.name for tool in asyncio.run(build_mcp_server(container).list_tools())}
    finally:
        container.close()


def named_tools(text: str, tools: set[str]) -> list[str]:
    return sorted(t for t in tools if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", text))


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    """`memspace …` on a store of this test, with the deterministic embedder."""
    def opened(settings: Settings) -> Container:
        return build(settings, store=SqliteStore(tmp_path / "memspace.db"),
                     embedder=HashEmbedder(), blobs=MemoryBlobStore())

    monkeypatch.setattr(cli_common, "build", opened)
    env = {"MEMSPACE_DATA_DIR": str(tmp_path), "MEMSPACE_LLM_MODEL": ""}
    return lambda *args: CliRunner().invoke(app, list(args), env=env)


def test_every_verbs_help_shows_plain_types_and_whole_option_names_in_80_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Typer reads TERMINAL_WIDTH once, when rich_utils is first imported, into a module global:
    # set in the environment here it stayed 80 for every later help in the process.
    monkeypatch.setattr(typer.rich_utils, "MAX_WIDTH", 80)
    runner = CliRunner()
    for path, command in commands():
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert shown.exit_code == 0, path
        out = shown.output
        assert not re.search(r"<(str|int|bool|float|Path|list\[[^\]]*\])>", out), (path, out)
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if name.startswith("--"):
                    assert re.search(rf"{re.escape(name)}(?![\w-])", out), (path, name, out)
    search = runner.invoke(app, ["search", "--help"], env={"COLUMNS": "80"}).output
    assert re.search(r"--limit\s+INTEGER", search) and re.search(r"--keyword\s+TEXT", search)


def test_a_contradicted_decision_exits_1_with_the_cli_commands_that_settle_it(run: Run) -> None:
    assert run("space", "create", "team").exit_code == 0
    first = run("add", "We deploy the storefront to production on Thursdays.", "--type",
                "decision", "--space", "team", "--json")
    assert first.exit_code == 0, first.output
    old = json.loads(first.stdout)["memories"][0]["id"]
    refused = run("add", "We deploy the storefront to production on Fridays.", "--type",
                  "decision", "--space", "team")
    assert refused.exit_code == 1, refused.output
    assert refused.output.startswith("error: nothing saved in 'team'")
    assert f"--supersedes {old}" in refused.output and "--force" in refused.output
    assert f"memspace correct {old} " in refused.output
    assert named_tools(refused.output, tool_names()) == []
    forced = run("add", "We deploy the storefront to production on Fridays.", "--type",
                 "decision", "--space", "team", "--force")
    assert forced.exit_code == 0, forced.output


def test_correct_replaces_a_memory_and_a_stale_version_is_refused_in_cli_words(run: Run) -> None:
    assert run("space", "create", "team").exit_code == 0
    added = json.loads(run("add", "The storefront is hosted on Vercel.", "--space", "team",
                           "--json").stdout)
    old = added["memories"][0]["id"]
    done = run("correct", old, "The storefront is hosted on Cloud Run since June.", "--space",
               "team", "--reason", "moved off Vercel", "--observed-at", "2026-06-01", "--json")
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["superseded"] == [old] and answer["memories"][0]["version"] == 2
    assert answer["memories"][0]["observedAt"].startswith("2026-06-01")
    stale = run("correct", old, "The storefront is hosted on Fly.io.", "--space", "team",
                "--expected-version", "1")
    assert stale.exit_code == 1 and "current is v2" in stale.output
    assert "memspace search" in stale.output
    assert named_tools(stale.output, tool_names()) == []
    bad_time = run("correct", old, "x y z", "--space", "team", "--observed-at", "June")
    assert bad_time.exit_code == 1 and "--observed-at" in bad_time.output


def test_a_search_without_a_space_names_the_space_flag_and_the_space_list(run: Run) -> None:
    refused = run("search", "hosting")
    assert refused.exit_code == 1
    assert "--space" in refused.output and "memspace space list" in refused.output
    assert named_tools(refused.output, tool_names()) == []


def test_the_conflict_queue_ends_with_the_cli_command_that_settles_one(run: Run) -> None:
    assert run("space", "create", "team").exit_code == 0
    assert run("add", "We deploy the storefront to production on Thursdays.", "--type",
               "decision", "--space", "team").exit_code == 0
    assert run("add", "We deploy the storefront to production on Fridays.", "--type",
               "decision", "--space", "team").exit_code == 1
    listed = run("conflicts", "list", "--space", "team")
    assert listed.exit_code == 0, listed.output
    assert "1 open conflict in 'team'" in listed.output
    assert "memspace conflicts resolve ID --keep SIDE --reason TEXT --space team" in listed.output
    assert named_tools(listed.output, tool_names()) == []


@pytest.mark.parametrize("verb", [
    ("correct", "MISSING", "The storefront is hosted on Fly.io."),
    ("mark", "MISSING", "disputed", "--reason", "doubtful"),
    ("verify", "--memory", "MISSING"),
    ("document", "retry", "MISSING"),
], ids=["correct", "mark", "verify", "document retry"])
def test_an_unknown_id_is_refused_naming_the_cli_verbs_that_list_ids(
        run: Run, verb: tuple[str, ...]) -> None:
    assert run("space", "create", "team").exit_code == 0
    missing = "0123456789abcdef0123456789abcdef"
    refused = run(*[missing if word == "MISSING" else word for word in verb], "--space", "team")
    assert refused.exit_code == 1, refused.output
    assert missing in refused.output and "`memspace " in refused.output
    assert named_tools(refused.output, tool_names()) == []


def test_an_instructions_file_that_is_not_there_is_a_usage_error_naming_it(
        run: Run, tmp_path: Path) -> None:
    assert run("space", "create", "team").exit_code == 0
    missing = tmp_path / "nowhere.md"
    refused = run("space", "set", "team", "--instructions", str(missing))
    assert refused.exit_code == 2, refused.output
    assert "does not exist" in refused.output and "nowhere.md" in refused.output
    notes = tmp_path / "notes.md"
    notes.write_text("Deploys need two approvals.", encoding="utf-8")
    done = run("space", "set", "team", "--instructions", str(notes))
    assert done.exit_code == 0, done.output
    piped = CliRunner().invoke(app, ["space", "set", "team", "--instructions", "-"],
                               input="Deploys need three approvals.",
                               env={"MEMSPACE_DATA_DIR": str(tmp_path), "MEMSPACE_LLM_MODEL": ""})
    assert piped.exit_code == 0, piped.output
