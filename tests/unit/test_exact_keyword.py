"""The strict keyword search of the prompt-recall hook (KeywordIndex.scores(exact=True)):
every word must be held as typed; the typo variants a plain keyword search accepts are not."""

from __future__ import annotations

import numpy as np

from memspace.stores.keyword_index import KeywordIndex


def rows(made: KeywordIndex, *typed: str, exact: bool) -> list[int]:
    return np.flatnonzero(made.scores(list(typed), exact) > 0).tolist()


def test_exact_words_only_and_every_one_of_them() -> None:
    made = KeywordIndex()
    made.append(["the schema migration runs first", "a shcema migraiton typo", "schema notes"])
    assert rows(made, "schema", "migration", exact=False) == [0, 1]  # typos tolerated
    assert rows(made, "schema", "migration", exact=True) == [0]
    assert rows(made, "shcema", exact=True) == [1]
    assert rows(made, "schema", "absent", exact=True) == []


def test_a_snake_case_name_is_one_word() -> None:
    made = KeywordIndex()
    made.append(["add_memory refuses long text", "add memory by hand", "add_memroy in a typo"])
    assert rows(made, "add_memory", exact=True) == [0]
    assert rows(made, "add_memory", exact=False) == [0, 2]  # one transposition away: a typo match
