"""The blend of vector and full-text lists (services/search/ranking.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memspace.domain.models import Memory, ScoredMemory
from memspace.services.search.ranking import (
    VECTOR_WEIGHT,
    blend,
    named,
    normalised,
    single,
)
from tests.support import builders as b

W = VECTOR_WEIGHT  # the vector list's share; the full-text list's is 1 - W
# The README's numbers, written out rather than read from services/search/ranking.py, so that changing
# a constant there fails here until the README says the new number: a named speaker or date
# lifts by a tenth of a list's top score, a neighbouring turn lifts by 0.3x its best score.
README_SPEAKER_LIFT = 0.1
README_DATE_LIFT = 0.1
README_NEIGHBOUR_LIFT = 0.3


def _memory(memory_id: str, speaker: str | None = None, follows: str | None = None,
            observed_at: datetime | None = None) -> Memory:
    return Memory(memory_id, "s", memory_id, "c", None, True, b.BASE, "t", memory_id,
                  speaker=speaker, follows=follows, observed_at=observed_at)


def _hits(*scored: tuple[str, float], speakers: dict[str, str] | None = None,
          follows: dict[str, str] | None = None) -> list[ScoredMemory]:
    return [ScoredMemory(_memory(i, (speakers or {}).get(i), (follows or {}).get(i)), s)
            for i, s in scored]


def test_each_list_is_scaled_min_max_over_its_candidates() -> None:
    assert normalised({"a": 12.0, "b": 3.0, "c": 0.0}) == {"a": 1.0, "b": 0.25, "c": 0.0}
    # cosines of a model that puts any two texts at 0.7-0.9 still spread over the whole range
    assert normalised({"a": 0.9, "b": 0.8, "c": 0.7}) == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0})
    assert normalised({"a": 0.5, "b": -0.2, "c": 0.15}) == pytest.approx({"a": 1.0, "b": 0.0, "c": 0.5})
    assert normalised({"a": 0.3}) == {"a": 1.0}
    assert normalised({"a": -0.1}) == {"a": 0.0}
    assert normalised({}) == {}


def test_candidates_a_list_gave_no_score_put_its_bottom_at_zero() -> None:
    # they count 0, so the list's last hit must count more than a memory it never found
    assert normalised({"a": 0.9, "b": 0.8}, unscored=True) == pytest.approx({"a": 1.0, "b": 0.8 / 0.9})
    assert normalised({"a": 0.9, "b": 0.8}) == {"a": 1.0, "b": 0.0}


def test_a_memory_both_lists_rank_well_beats_one_only_one_list_ranks_first() -> None:
    by_vector = _hits(("v-top", 0.9), ("both", 0.8))
    by_text = _hits(("t-top", 20.0), ("both", 16.0))
    ranked = blend(by_vector, by_text, "anything")
    assert [r.memory.id for r in ranked] == ["both", "v-top", "t-top"]  # W > 1 - W
    assert ranked[0].score == pytest.approx(W * 0.8 / 0.9 + (1 - W) * 16.0 / 20.0)
    assert ranked[0].matched_by == ("vector", "text")


def test_how_much_better_a_hit_is_counts_not_only_its_rank() -> None:
    # RRF would tie "x" (1st in text) with "y" (1st in vector): both 1/(60+1). Here the text list
    # says "x" is far ahead of its runner-up while the vector list barely prefers "y".
    by_vector = _hits(("y", 0.80), ("x", 0.79), ("z", 0.50))
    by_text = _hits(("x", 30.0), ("y", 3.0), ("z", 0.0))
    assert [r.memory.id for r in blend(by_vector, by_text, "q")] == ["x", "y", "z"]


def test_a_list_that_is_empty_leaves_the_other_ranking_as_it_was() -> None:
    ranked = blend([], _hits(("a", 5.0), ("b", 4.0)), "q")
    assert [r.memory.id for r in ranked] == ["a", "b"]
    assert all(r.matched_by == ("text",) for r in ranked)


def test_a_query_naming_a_speaker_lifts_what_that_speaker_said() -> None:
    speakers = {"mel": "Melanie", "car": "Caroline Rivera"}
    by_text = _hits(("mel", 10.0), ("car", 9.5), ("low", 0.0), speakers=speakers)
    plain = blend([], by_text, "what did she paint")
    assert [r.memory.id for r in plain] == ["mel", "car", "low"]
    asked = blend([], by_text, "What did caroline RIVERA paint?")
    assert [r.memory.id for r in asked] == ["car", "mel", "low"]
    assert asked[0].score == pytest.approx((1 - W) * 0.95 + README_SPEAKER_LIFT)
    assert asked[0].matched_by == ("text", "speaker")


def test_a_speaker_is_named_only_by_every_word_of_the_name() -> None:
    assert named("Caroline Rivera", {"caroline", "rivera", "paint"})
    assert not named("Caroline Rivera", {"caroline", "paint"})
    assert not named("Caro", {"caroline"})
    assert not named(None, {"caroline"})
    assert not named("  ", {"caroline"})


def test_a_hit_below_the_other_lists_cut_gets_its_real_score_there_not_zero() -> None:
    by_vector = _hits(("v1", 0.80), ("v2", 0.79), ("v3", 0.70))
    by_text = _hits(("t", 10.0), ("v2", 1.0))
    cosines = {"v1": 0.80, "v2": 0.79, "v3": 0.70, "t": 0.78}
    text_scores = {"v1": 4.0, "v2": 1.0, "v3": 0.0, "t": 10.0}
    ranked = {r.memory.id: r for r in blend(by_vector, by_text, "q", cosines, text_scores)}
    assert ranked["t"].score == pytest.approx(W * (0.78 - 0.70) / 0.10 + (1 - W) * 1.0)
    assert ranked["t"].matched_by == ("text",)
    assert ranked["v1"].score == pytest.approx(W * 1.0 + (1 - W) * 0.4)
    assert ranked["v1"].matched_by == ("vector",)  # found by its meaning; its words only count
    without = {r.memory.id: r.score for r in blend(by_vector, by_text, "q")}
    assert without["t"] == pytest.approx(1 - W) and without["v1"] == pytest.approx(W)
    # the cross scores only score the memories the lists found: they add none
    assert set(ranked) == {"v1", "v2", "v3", "t"}
    extra = blend(by_vector, by_text, "q", cosines | {"x": 0.9}, text_scores | {"x": 20.0})
    assert {r.memory.id: r.score for r in extra} == {m: r.score for m, r in ranked.items()}


def test_a_turn_whose_reply_matched_is_lifted_by_the_reply() -> None:
    # "question" asks what the reply answers; the reply holds the query's words. Without the
    # link "other" (a slightly better match on its own) ranks above the question.
    links = {"reply": "question"}
    by_text = _hits(("reply", 10.0), ("other", 6.0), ("question", 5.0), ("low", 0.0), follows=links)
    ranked = blend([], by_text, "q")
    assert [r.memory.id for r in ranked] == ["reply", "question", "other", "low"]
    lifted = {r.memory.id: r for r in ranked}
    assert lifted["question"].score == pytest.approx(
        (1 - W) * 0.5 + README_NEIGHBOUR_LIFT * (1 - W) * 1.0)
    assert lifted["question"].matched_by == ("text", "neighbour")
    # the reply is lifted by the question in turn, by a fraction of the question's own score
    assert lifted["reply"].score == pytest.approx((1 - W) + README_NEIGHBOUR_LIFT * (1 - W) * 0.5)
    assert lifted["other"].matched_by == ("text",)
    unlinked = blend([], _hits(("reply", 10.0), ("other", 6.0), ("question", 5.0), ("low", 0.0)), "q")
    assert [r.memory.id for r in unlinked] == ["reply", "other", "question", "low"]


def test_turns_two_steps_apart_lift_each_other_and_three_steps_do_not() -> None:
    # a <- b <- c <- d: "a" and "c" are two turns apart, "a" and "d" three
    links = {"b": "a", "c": "b", "d": "c"}
    by_text = _hits(("a", 10.0), ("b", 1.0), ("c", 1.0), ("d", 1.0), ("low", 0.0), follows=links)
    lifted = {r.memory.id: r.score for r in blend([], by_text, "q")}
    assert lifted["c"] == pytest.approx((1 - W) * (0.1 + README_NEIGHBOUR_LIFT))
    # b and c are near it, not a
    assert lifted["d"] == pytest.approx((1 - W) * (0.1 + README_NEIGHBOUR_LIFT * 0.1))


def test_only_turns_both_lists_found_lift_each_other() -> None:
    # "b" continues "a", but "a" is in neither list: nothing is known of its score
    ranked = blend([], _hits(("b", 4.0), ("x", 4.0), follows={"b": "a"}), "q")
    assert {r.memory.id: r.score for r in ranked} == {"b": 1 - W, "x": 1 - W}
    assert all("neighbour" not in r.matched_by for r in ranked)


def test_a_query_naming_a_date_lifts_what_was_observed_on_it() -> None:
    def at(day: int, hour: int = 12, offset: int = 0) -> datetime:
        return datetime(2023, 8, day, hour, tzinfo=timezone(timedelta(hours=offset)))

    observed = {"aug": at(14), "july": datetime(2023, 7, 31, 23, tzinfo=UTC),
                # 1 September 01:00 in UTC, but 31 August in the caller's own offset
                "late": datetime(2023, 8, 31, 19, tzinfo=timezone(timedelta(hours=-6))),
                "unknown": None, "low": None}
    hits = [ScoredMemory(_memory(i, observed_at=when), score)
            for (i, when), score in zip(observed.items(), (9.0, 10.0, 8.5, 9.5, 0.0), strict=True)]
    ranked = blend([], hits, "What injury did Evan have in August 2023?")
    assert [r.memory.id for r in ranked] == ["aug", "late", "july", "unknown", "low"]
    lifted = {r.memory.id: r for r in ranked}
    assert lifted["aug"].score == pytest.approx((1 - W) * 0.9 + README_DATE_LIFT)
    assert lifted["aug"].matched_by == ("text", "time")
    assert lifted["july"].matched_by == ("text",)
    on_the_day = blend([], hits, "what happened on 14 August 2023")
    assert on_the_day[0].memory.id == "aug" and "time" not in on_the_day[1].matched_by
    assert [r.memory.id for r in blend([], hits, "what did Evan injure")] == [
        "july", "unknown", "aug", "late", "low"]


def test_one_list_alone_keeps_its_order_scores_and_name() -> None:
    hits = _hits(("a", 3.0), ("b", 1.0))
    ranked = single(hits, "keyword")
    assert [(r.memory, r.score, r.matched_by) for r in ranked] == [
        (hits[0].memory, 3.0, ("keyword",)), (hits[1].memory, 1.0, ("keyword",))]


def test_a_ranking_of_heads_is_made_whole_with_one_read_for_the_heads_without_memories() -> None:
    from dataclasses import replace

    from memspace.domain.heads import MemoryHead
    from memspace.domain.models import MemoryFilter
    from memspace.services.search.ranking import Ranked, whole
    from tests.support.role_fakes import MemoryReads

    kept, gone, known, carried = (_memory(i) for i in ("kept", "gone", "known", "carried"))
    reads = MemoryReads(kept, replace(gone, active=False), known)
    ranked = [Ranked(MemoryHead("kept"), 0.9, ("vector",)),
              Ranked(MemoryHead("gone"), 0.8, ("text",)),  # deactivated since its head was read
              Ranked(carried, 0.7, ("text",)),  # read whole by the store
              Ranked(MemoryHead("known"), 0.6, ("vector", "keyword")),
              Ranked(MemoryHead("never"), 0.5, ("text",))]  # erased since
    answer = whole(reads, MemoryFilter("s"), ranked, {"known": known})
    assert [(r.memory, r.score, r.matched_by) for r in answer] == [
        (kept, 0.9, ("vector",)), (carried, 0.7, ("text",)), (known, 0.6, ("vector", "keyword"))]
    assert reads.reads == 3  # kept, gone, never: not the carried or known ones
    everything = whole(reads, MemoryFilter("s", include_inactive=True), ranked[:2])
    assert [r.memory.id for r in everything] == ["kept", "gone"]
    already = [Ranked(kept, 0.9, ("vector",)), Ranked(known, 0.6, ("text",))]
    assert whole(reads, MemoryFilter("s"), already) == already  # nothing read, nothing redone
    assert reads.reads == 5
