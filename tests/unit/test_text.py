from __future__ import annotations

import pytest

from memspace.domain import text
from memspace.domain.text import content_hash, max_edits, osa_distance, tolerated


@pytest.mark.parametrize("term, word, ok", [
    ("migraiton", "migration", True),   # one transposition in a long word
    ("shcema", "schema", True),
    ("plan", "plant", False),           # short words must match exactly…
    ("plant", "plan", False),           # …in both directions
    ("cat", "cart", False),
    ("deploy", "deply", True),          # five-letter budget of the shorter word
    ("release", "relaese", True),
    ("postgres", "postgresql", True),   # two inserts on eight letters
    ("kafka", "kafkaesque", False),
])
def test_typo_tolerance_follows_the_documented_rule(term: str, word: str, ok: bool) -> None:
    assert tolerated(term, word) is ok


def test_edit_budget_grows_with_length() -> None:
    assert [max_edits(w) for w in ("plan", "plans", "release", "migration")] == [0, 1, 1, 2]


def test_osa_distance_counts_a_transposition_as_one() -> None:
    assert osa_distance("ab", "ba") == 1 and osa_distance("kitten", "sitting") == 3


def test_content_hash_ignores_case_and_spacing_only() -> None:
    assert content_hash("Deploy on  Friday") == content_hash(" deploy on friday ")
    assert content_hash("Deploy on Friday") != content_hash("Deploy on Friday!")


def test_index_terms_are_stemmed_case_folded_and_free_of_stop_words() -> None:
    assert text.terms("The Researchers were RESEARCHING paintings") == [
        "research", "research", "paint"]
    assert text.index_terms("Caroline painted", "Did you paint?") == "carolin paint paint"
    assert text.index_terms("Caroline painted") == "carolin paint"


def test_query_terms_are_distinct_and_fall_back_to_stop_words_alone() -> None:
    assert text.query_terms("What did Caroline research, researching what?") == [
        "carolin", "research"]
    assert text.query_terms("who is it") == ["who", "is", "it"]
    assert text.query_terms("  ") == []
