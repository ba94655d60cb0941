"""Which words of a prompt the prompt-recall hook searches for (domain/identifiers.py): names a
person would not write in prose, never ordinary words."""

from __future__ import annotations

import pytest

from memspace.domain.identifiers import MAX_IDENTIFIERS, MAX_SCANNED_CHARS, identifiers, mentions


@pytest.mark.parametrize("prompt, expected", [
    ("why does add_memory fail?", ["add_memory"]),
    ("set MEMSPACE_API_KEY first", ["MEMSPACE_API_KEY"]),
    ("call correctMemory or listSpaces", ["correctMemory", "listSpaces"]),
    ("SqliteStore wraps it", ["SqliteStore"]),
    ("look at services.access and cli.py.", ["services.access", "cli.py"]),
    ("open src/memspace/cli/main.py, then ./run.sh and ~/.claude/settings.json",
     ["src/memspace/cli/main.py", "./run.sh", "~/.claude/settings.json"]),
    ("pass --space and --max-tokens", ["--space", "--max-tokens"]),
    ("tests/e2e/conftest.py", ["tests/e2e/conftest.py"]),
])
def test_identifiers_of_each_kind_are_found_whole(prompt: str, expected: list[str]) -> None:
    assert identifiers(prompt) == expected


@pytest.mark.parametrize("prompt", [
    "Please fix the deploy script so it works on Monday.",
    "Hello World, the API and JSON are fine, e.g. for OAuth i.e. now",
    "read/write access and/or a well-known pre-release - nothing -- here",
    "The U.S.A and 3.14 and v2",
    "",
])
def test_ordinary_prose_has_no_identifiers(prompt: str) -> None:
    assert identifiers(prompt) == []


def test_repeats_count_once_whatever_their_case_and_the_first_few_are_kept() -> None:
    assert identifiers("add_memory then ADD_MEMORY then add_memory") == ["add_memory"]
    many = " ".join(f"name_{n}" for n in range(20))
    assert identifiers(many) == [f"name_{n}" for n in range(MAX_IDENTIFIERS)]


def test_only_the_start_of_a_huge_prompt_is_read() -> None:
    prose = "word " * (MAX_SCANNED_CHARS // 5)
    assert identifiers("first_name " + prose + " last_name") == ["first_name"]


def test_a_memory_mentions_an_identifier_as_written_case_aside() -> None:
    assert mentions("Use --space to pick one", "--space")
    assert not mentions("The space is large", "--space")
    assert mentions("CorrectMemory needs a version", "correctMemory")
    assert not mentions("correct memory needs a version", "correctMemory")
