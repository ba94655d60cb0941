"""Every `memspace … --help` as a terminal of a fixed size prints it: the copy in
tests/data/cli_help.json was taken from this before the CLI's modules moved into one package,
and tests/unit/test_cli_help.py holds today's help to it (`python -m tests.support.cli_help`
writes the copy anew, for a change of wording made on purpose)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
import typer.rich_utils
import typer.testing

COPY = Path(__file__).resolve().parents[1] / "data" / "cli_help.json"
# A fixed size and no colour, so the copy does not depend on the terminal it was taken in.
TERMINAL = {"COLUMNS": "100", "LINES": "50", "NO_COLOR": "1", "TERM": "dumb"}


def verbs(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command path under a click group, the group itself first."""
    yield path
    for name in sorted(group.commands):
        sub = group.commands[name]
        if hasattr(sub, "commands"):
            yield from verbs(sub, (*path, name))
        else:
            yield (*path, name)


def help_texts(app: typer.Typer) -> dict[str, str]:
    """`memspace [VERB …] --help`'s output for every verb, keyed by the verb's words."""
    runner = typer.testing.CliRunner()
    texts = {}
    # Typer reads TERMINAL_WIDTH once, at its first import, into this global, which wins over
    # COLUMNS: it is pinned for these calls and given back after.
    width = typer.rich_utils.MAX_WIDTH
    typer.rich_utils.MAX_WIDTH = int(TERMINAL["COLUMNS"])
    try:
        for path in verbs(typer.main.get_command(app)):
            answer = runner.invoke(app, [*path, "--help"], env=TERMINAL, color=False,
                                   prog_name="memspace")
            assert answer.exit_code == 0, (path, answer.output)
            texts[" ".join(("memspace", *path))] = answer.stdout
    finally:
        typer.rich_utils.MAX_WIDTH = width
    return texts


if __name__ == "__main__":
    from memspace.cli.main import app as memspace_app

    COPY.write_text(json.dumps(help_texts(memspace_app), indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
    sys.stdout.write(f"wrote {COPY}\n")
