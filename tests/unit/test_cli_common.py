"""Every CLI command maps domain errors the same way and closes what it opened (cli_common)."""

from __future__ import annotations

import pytest
import typer

from memspace.cli import common as cli_common
from memspace.cli.common import command, open_container
from memspace.domain.errors import NotFound


class Closable:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_a_domain_error_says_what_to_do_exits_1_and_closes_the_container(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened = Closable()
    monkeypatch.setattr(cli_common, "build", lambda settings: opened)

    @command
    def failing() -> None:
        open_container()
        raise NotFound("no space 'x'; `memspace space list` shows them")

    with pytest.raises(typer.Exit) as stopped:
        failing()
    assert stopped.value.exit_code == 1
    assert capsys.readouterr().err == "error: no space 'x'; `memspace space list` shows them\n"
    assert opened.closed == 1


def test_a_command_that_succeeds_closes_its_container_too(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = Closable()
    monkeypatch.setattr(cli_common, "build", lambda settings: opened)

    @command
    def fine(word: str) -> None:
        assert open_container() is opened
        typer.echo(word)

    fine("ok")
    assert opened.closed == 1
