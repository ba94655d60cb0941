"""`memspace --help` and every `memspace VERB --help` print what the copy in
tests/data/cli_help.json holds (tests/support/cli_help.py): moving a verb between modules
changes no verb, option, help text or listing order."""

from __future__ import annotations

import json
from functools import cache

import pytest

from memspace.cli.main import app
from tests.support.cli_help import COPY, help_texts

COPIED: dict[str, str] = json.loads(COPY.read_text(encoding="utf-8"))


@cache
def today() -> dict[str, str]:
    return help_texts(app)


def test_the_same_verbs_are_listed() -> None:
    assert sorted(today()) == sorted(COPIED)


@pytest.mark.parametrize("verb", sorted(COPIED))
def test_each_verb_prints_the_same_help(verb: str) -> None:
    assert today().get(verb) == COPIED[verb]
