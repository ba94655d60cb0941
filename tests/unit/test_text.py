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


@pytest.mark.parametrize("a, b, distance", [
    ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("abc", "abc", 0),
    ("abc", "abd", 1), ("abc", "ab", 1), ("ab", "abc", 1), ("abc", "bac", 1),
    ("abcd", "badc", 2), ("ca", "abc", 3), ("migraiton", "migration", 1), ("kitten", "sitting", 3),
])
def test_osa_distance_counts_edits_with_adjacent_transpositions(a: str, b: str, distance: int) -> None:
    assert osa_distance(a, b) == distance
    assert osa_distance(b, a) == distance


def test_identical_words_are_tolerated_whatever_their_length() -> None:
    assert tolerated("a", "a") and tolerated("plan", "plan")
    assert tolerated("plans", "plant")  # five letters: one substitution allowed
    assert not tolerated("cat", "cut")  # no budget under five letters
    assert tolerated("deploys", "deploy")  # one deletion, budget 1 at six letters


@pytest.mark.parametrize("count, one, many, said", [
    (0, "result", None, "0 results"),
    (1, "result", None, "1 result"),
    (2, "memory", "memories", "2 memories"),
    (1, "memory", "memories", "1 memory"),
    (-1, "hop", None, "-1 hops"),
])
def test_a_count_carries_its_noun_in_the_right_number(count: int, one: str, many: str | None,
                                                       said: str) -> None:
    assert text.counted(count, one, many) == said


@pytest.mark.parametrize("kind, category, said", [
    ("note", "billing", "billing"),
    ("decision", "billing", "decision, billing"),
    ("decision", "decision", "decision"),   # the category repeats the type: said once
])
def test_a_memory_reads_as_its_type_and_category_without_saying_one_twice(kind: str, category: str,
                                                                          said: str) -> None:
    assert text.kind_label(kind, category) == said
