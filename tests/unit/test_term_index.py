"""BM25 of one space's memories, computed with that space's own statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memspace.stores.term_index import K1, B, TermIndex


def bm25(docs: list[list[str]], query: list[str], row: int) -> float:
    """Okapi BM25 written out term by term: the reference the index must equal."""
    n = len(docs)
    avg = sum(len(d) for d in docs) / n
    score = 0.0
    for term in dict.fromkeys(query):
        df = sum(term in d for d in docs)
        tf = docs[row].count(term)
        if not df or not tf:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(docs[row]) / avg))
    return score


DOCS = ["deploy freez friday", "pager rotat week pager", "deploy pipelin kafka", "kafka event",
        "", "postgr billing databas deploy"]


def test_scores_are_okapi_bm25_of_the_space() -> None:
    index = TermIndex()
    index.append(DOCS[:3])
    index.append(DOCS[3:])  # appended in two steps, as a cache refresh does
    split = [d.split() for d in DOCS]
    for query in (["deploy"], ["pager"], ["kafka", "deploy"], ["deploy", "deploy"], ["absent"]):
        got = index.scores(query)
        assert got.dtype == np.float32 and len(got) == len(DOCS)
        for row in range(len(DOCS)):
            assert got[row] == pytest.approx(bm25(split, query, row), rel=1e-5, abs=1e-6)


def test_a_rarer_term_weighs_more_and_a_repeat_counts() -> None:
    index = TermIndex()
    index.append(DOCS)
    scores = index.scores(["pager", "deploy"])
    assert scores[1] > scores[0] > 0  # "pager" is in one memory, "deploy" in three
    repeated, once = TermIndex(), TermIndex()
    repeated.append(["pager pager rotat", "week"])
    once.append(["pager rotat week", "week"])
    assert repeated.scores(["pager"])[0] > once.scores(["pager"])[0]


def test_statistics_belong_to_the_index_alone() -> None:
    """Two spaces with the same memory: its score depends only on its own space's counts."""
    quiet, busy = TermIndex(), TermIndex()
    quiet.append(["deploy freez friday", "pager rotat week"])
    busy.append(["deploy freez friday", "pager rotat week"] + ["deploy pipelin"] * 50)
    assert quiet.scores(["deploy"])[0] > busy.scores(["deploy"])[0] > 0


def test_an_exported_index_restores_to_the_same_scores() -> None:
    index = TermIndex()
    index.append(DOCS)
    again = TermIndex.restore(index.export())
    for query in (["deploy"], ["pager", "kafka"], ["databas"], ["pager"]):
        assert np.array_equal(index.scores(query), again.scores(query))
    again.append(["kafka pager"])  # and it keeps growing like the original
    index.append(["kafka pager"])
    assert np.array_equal(index.scores(["kafka", "pager"]), again.scores(["kafka", "pager"]))
    assert again.last_terms() == ["kafka", "pager"]


def test_the_last_rows_terms_are_known() -> None:
    index = TermIndex()
    index.append(DOCS[:2])
    assert index.last_terms() == ["pager", "pager", "rotat", "week"]
    index.append([""])
    assert index.last_terms() == []


def test_an_empty_index_scores_nothing() -> None:
    index = TermIndex()
    assert index.scores(["deploy"]).size == 0 and index.rows == 0
    index.append([""])
    assert index.scores(["deploy"]).tolist() == [0.0]
