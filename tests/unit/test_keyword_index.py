"""Keyword search on the in-process index (stores/keyword_index.py): every typed word must be
held, as typed or within its typo budget; exact words outrank typo matches; a word matched
by several stored words counts once; words stored after a first lookup are found; the index
survives a snapshot; the cache applies the space's filters."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memspace.stores.keyword_index import KeywordIndex
from memspace.stores.vector_cache import VectorCache


def index(*contents: str) -> KeywordIndex:
    made = KeywordIndex()
    made.append(list(contents))
    return made


def found(made: KeywordIndex, *typed: str) -> list[int]:
    """Rows with a score, best first."""
    scores = made.scores(list(typed))
    rows = np.flatnonzero(scores > 0)
    return rows[np.argsort(-scores[rows], kind="stable")].tolist()


def test_every_typed_word_must_be_held() -> None:
    made = index("release checklist for mobile", "release notes for web", "mobile app")
    assert found(made, "release", "mobile") == [0]
    assert found(made, "release", "desktop") == []


def test_typos_within_the_budget_of_the_shorter_word_match_and_short_words_stay_exact() -> None:
    made = index("The schema migration runs before every deploy", "The plant needs water",
                 "The plan for Q3 is hiring")
    assert found(made, "migraiton") == [0]  # nine letters: two edits (a transposition is one)
    assert found(made, "shcema") == [0]  # six letters: one edit
    assert found(made, "plan") == [2]
    assert found(made, "plant") == [1]  # `plan` has four letters: no edit allowed either way
    assert found(made, "schemata") == []  # two edits from `schema`, whose budget is one


def test_stop_words_count_and_case_and_width_are_folded() -> None:
    made = index("the plan is final", "a plan is final", "ＴＨＥ PLAN")
    assert found(made, "the", "plan") == [2, 0]  # the shorter memory first (BM25)


def test_an_exact_word_outranks_the_same_word_reached_through_a_typo() -> None:
    made = index("deploys the servixe nightly", "deploys the service nightly")
    assert found(made, "service") == [1, 0]  # alike but for the typo, which comes first


def test_a_typed_word_matched_by_several_stored_words_counts_once() -> None:
    # row 0 holds `service` and its one-edit variant `services`; row 1 the variant alone, row 2
    # the word alone, each as often in rows as long: row 0 scores the better of the two, not both
    scores = index("services service", "services filler", "service filler").scores(["service"])
    assert float(scores[0]) == max(float(scores[1]), float(scores[2]))
    assert float(scores[1]) > 0 and float(scores[2]) > 0


def test_words_stored_after_a_first_lookup_are_found_by_the_next() -> None:
    made = index("The schema is versioned")
    assert found(made, "migraiton") == []
    made.append(["The migration runs nightly"])
    assert found(made, "migraiton") == [1]
    made.append(["A second migration"])
    assert sorted(found(made, "migraiton")) == [1, 2]


def test_an_exported_index_scores_as_the_original() -> None:
    made = index("Kafka cluster sizing", "kafka consumers lag", "nothing here")
    copy = KeywordIndex.restore(made.export())
    for typed in (["kafka"], ["kafak"], ["consumers", "lag"], ["absent"]):
        assert np.allclose(made.scores(typed), copy.scores(typed))


class _Source:
    """One space: seq 1..n, the given categories and contents, some seqs inactive."""

    def __init__(self, rows: Sequence[tuple[str, str]], inactive: set[int]) -> None:
        self._rows = [(n + 1, None, category, "", content)
                      for n, (category, content) in enumerate(rows)]
        self._inactive = inactive

    def vector_version(self, space_id: str) -> int:
        return 1

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> list[tuple[int, object, str, str, str]]:
        return [r for r in self._rows if r[0] > after_seq][:limit]

    def memory_count(self, space_id: str) -> int:
        return len(self.vectors_after(space_id, 0))

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        return sorted(s for s in self._inactive if s <= upto_seq)


def test_the_cache_ranks_keywords_within_the_filters_of_the_search() -> None:
    source = _Source([("general", "deploy on fridays"), ("ops", "deploy the billing queue"),
                      ("ops", "deploy again"), ("general", "nothing")], inactive={3})
    cache = VectorCache()
    top = cache.keyword_top_k(source, "s", ["deploy"], 10, None, False)
    assert sorted(seq for seq, _ in top) == [1, 2]  # seq 3 is inactive, seq 4 lacks the word
    assert [seq for seq, _ in cache.keyword_top_k(source, "s", ["deploy"], 10, "ops", False)] == [2]
    assert sorted(seq for seq, _ in cache.keyword_top_k(
        source, "s", ["deploy"], 10, "ops", True)) == [2, 3]
    assert len(cache.keyword_top_k(source, "s", ["deploy"], 1, None, False)) == 1
