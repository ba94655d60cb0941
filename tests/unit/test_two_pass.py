"""Two-pass extraction (llm/two_pass.py, MEMSPACE_EXTRACTION_PASSES=2) on scripted model answers
served through the real litellm path: the facts call shows no candidate, each fact is related in
its own call to its nearest candidates only, an UPDATES stands only when the values the model
names show a change, and the grounding guard still drops what the content does not say."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import Candidate
from memspace.domain.models import Access, MemoryFilter, RelationType
from memspace.llm.extractor import LitellmExtractor
from memspace.llm.schema import MemoryVerdict
from memspace.llm.two_pass import TwoPassExtractor, nearest_candidates, swaps_value
from memspace.startup.adapters import build_extractor
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder
from tests.support.scripted_llm import Reply, ScriptedLLM, Status

AT = datetime(2026, 1, 5, tzinfo=UTC)
CANDIDATES = [
    Candidate(0, "Laptop batteries are recycled by GreenCell.", "fact", AT),
    Candidate(1, "The print shop closes at 18:00.", "fact", AT),
    Candidate(2, "Desk bookings are made in Robin.", "convention", AT),
]


def facts(*texts: str) -> Reply:
    return Reply({"facts": [{"text": t, "type": "fact", "category": "fact", "relations": []}
                            for t in texts]}, prompt_tokens=300, completion_tokens=30)


def verdict(memory: int, relation: str, memory_says: str = "", fact_says: str = "",
            still_true: bool = True, same_subject: bool = True) -> dict[str, Any]:
    return {"memory": memory, "memory_says": memory_says, "fact_says": fact_says,
            "same_subject": same_subject, "still_true": still_true, "relation": relation}


def verdicts(*items: dict[str, Any]) -> Reply:
    return Reply({"memories": list(items)}, prompt_tokens=200, completion_tokens=40)


def two_pass(url: str) -> TwoPassExtractor:
    return TwoPassExtractor("openai/scripted", api_base=url, api_key="test", timeout_s=5)


def user_text(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def test_facts_first_without_candidates_then_one_call_per_fact_on_its_nearest(
        scripted: ScriptedLLM) -> None:
    content = ("We moved battery recycling from GreenCell to EcoVolt. "
               "The print shop now closes at 19:00.")
    scripted.push(facts("Laptop battery recycling moved from GreenCell to EcoVolt.",
                        "The print shop closes at 19:00."),
                  verdicts(verdict(0, "updates", "GreenCell", "EcoVolt", still_true=False)),
                  verdicts(verdict(1, "none", "18:00", "19:00", still_true=False)))

    got = two_pass(scripted.url).extract(content, CANDIDATES)

    first, per_fact = scripted.requests[0], scripted.requests[1:]
    # The facts call shows no existing memory and its schema allows no relation.
    assert all(c.content not in user_text(first) for c in CANDIDATES)
    schema = first["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["FactItem"]["properties"]["relations"]["maxItems"] == 0
    # Each relation call lists only the candidates the fact shares terms with, by their numbers.
    assert "[0] Laptop batteries are recycled by GreenCell." in user_text(per_fact[0])
    assert all(c.content not in user_text(per_fact[0]) for c in CANDIDATES[1:])
    assert "[1] The print shop closes at 18:00." in user_text(per_fact[1])
    numbers = per_fact[1]["response_format"]["json_schema"]["schema"]["$defs"]["MemoryVerdict"]
    assert numbers["properties"]["memory"]["enum"] == [1]
    # "none" with the values swapped and the memory no longer true is an UPDATES: the values decide.
    assert [[(r.candidate, r.type) for r in f.relations] for f in got.facts] == [
        [(0, RelationType.UPDATES)], [(1, RelationType.UPDATES)]]
    assert (got.llm_calls, got.prompt_tokens, got.completion_tokens) == (3, 700, 110)


@pytest.mark.parametrize("answer", [
    # the same value again: a restatement retires nothing
    verdict(1, "updates", "18:00", "18:00", still_true=False),
    # no old value named
    verdict(1, "updates", "", "19:00", still_true=False),
    # an old value the memory never says
    verdict(1, "updates", "17:30", "19:00", still_true=False),
    # said to be another subject
    verdict(1, "updates", "18:00", "19:00", still_true=False, same_subject=False),
])
def test_an_updates_without_a_named_change_the_texts_hold_up_is_no_relation(
        scripted: ScriptedLLM, answer: dict[str, Any]) -> None:
    scripted.push(facts("The print shop closes at 19:00."), verdicts(answer))

    got = two_pass(scripted.url).extract("The print shop now closes at 19:00.", CANDIDATES)

    assert [f.relations for f in got.facts] == [()]


def test_extends_and_derives_are_kept_and_extends_needs_the_same_subject(
        scripted: ScriptedLLM) -> None:
    content = "Desk bookings in Robin need a badge number, so the print shop is badge-only too."
    scripted.push(facts("Desk bookings in Robin need a badge number.",
                        "The print shop is badge-only, like desk bookings."),
                  verdicts(verdict(2, "extends", "", "badge number")),
                  verdicts(verdict(1, "derives"), verdict(2, "extends", same_subject=False)))
    # the second fact shares terms with [1] and [2]: both are asked about

    got = two_pass(scripted.url).extract(content, CANDIDATES)

    assert [[(r.candidate, r.type) for r in f.relations] for f in got.facts] == [
        [(2, RelationType.EXTENDS)], [(1, RelationType.DERIVES)]]


def test_a_fact_the_content_does_not_say_is_dropped_before_any_relation_call(
        scripted: ScriptedLLM) -> None:
    content = "Battery recycling moved from GreenCell to EcoVolt."
    scripted.push(facts("Battery recycling moved from GreenCell to EcoVolt.",
                        "Desk bookings are made in Robin."),
                  verdicts(verdict(0, "updates", "GreenCell", "EcoVolt", still_true=False)))

    got = two_pass(scripted.url).extract(content, CANDIDATES)

    assert [f.text for f in got.facts] == ["Battery recycling moved from GreenCell to EcoVolt."]
    assert [d.text for d in got.dropped] == ["Desk bookings are made in Robin."]
    assert len(scripted.requests) == 2  # the dropped fact cost no relation call


def test_a_fact_sharing_no_term_with_any_candidate_costs_no_relation_call(
        scripted: ScriptedLLM) -> None:
    scripted.push(facts("Quarterly planning starts on Monday."))

    got = two_pass(scripted.url).extract("Quarterly planning starts on Monday.", CANDIDATES)

    assert (got.llm_calls, [f.relations for f in got.facts]) == (1, [()])


def test_a_failed_relation_call_fails_the_extraction_with_every_pass_counted(
        scripted: ScriptedLLM) -> None:
    scripted.push(facts("The print shop closes at 19:00."), Status(500, "model crashed"))

    with pytest.raises(ExtractionFailed) as failed:
        two_pass(scripted.url).extract("The print shop now closes at 19:00.", CANDIDATES)

    assert (failed.value.llm_calls, failed.value.prompt_tokens) == (2, 300)


def test_an_invalid_relation_answer_is_asked_again_once(scripted: ScriptedLLM) -> None:
    scripted.push(facts("The print shop closes at 19:00."), Reply("not json"),
                  verdicts(verdict(1, "updates", "18:00", "19:00", still_true=False)))

    got = two_pass(scripted.url).extract("The print shop now closes at 19:00.", CANDIDATES)

    assert got.llm_calls == 3
    assert "could not be used" in user_text(scripted.requests[2])
    assert [(r.candidate, r.type) for r in got.facts[0].relations] == [(1, RelationType.UPDATES)]


def test_nearest_candidates_rank_by_shared_terms_and_leave_out_unrelated() -> None:
    fact = "The print shop closes at 19:00 and takes laptop batteries."
    # three terms shared with [1] (print, shop, close), two with [0], none with [2]
    assert [c.number for c in nearest_candidates(fact, CANDIDATES)] == [1, 0]
    assert nearest_candidates("Quarterly planning starts on Monday.", CANDIDATES) == []


@pytest.mark.parametrize("memory_says, fact_says, expected", [
    ("GreenCell", "EcoVolt", True),
    ("recycled by GreenCell", "no longer GreenCell", True),  # an ending is a change
    ("GreenCell", "GreenCell", False),
    ("", "EcoVolt", False),
    ("Ampere", "EcoVolt", False),  # the memory never says Ampere
])
def test_swaps_value(memory_says: str, fact_says: str, expected: bool) -> None:
    answer = MemoryVerdict(memory=0, memory_says=memory_says, fact_says=fact_says,
                           same_subject=True, still_true=False, relation="updates")
    fact = "Laptop batteries are no longer recycled by GreenCell but by EcoVolt."
    assert swaps_value(answer, fact, CANDIDATES[0].content) is expected


def test_the_setting_picks_the_extractor_and_one_call_stays_the_default() -> None:
    base = Settings(_env_file=None, llm_model="openai/x")  # type: ignore[call-arg]
    assert base.extraction_passes == 1
    assert type(build_extractor(base)) is LitellmExtractor
    assert type(build_extractor(base.model_copy(update={"extraction_passes": 2}))) is TwoPassExtractor
    with pytest.raises(ValueError):
        Settings(_env_file=None, extraction_passes=3)  # type: ignore[call-arg]


@pytest.fixture
def app(scripted: ScriptedLLM) -> Iterator[Container]:
    settings = Settings(_env_file=None, llm_model="openai/scripted",  # type: ignore[call-arg]
                        llm_api_base=scripted.url, llm_api_key="test", llm_timeout_s=5,
                        extraction_passes=2)
    made = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder())
    made.admin.create_space("acme")
    yield made
    made.close()


def test_an_add_with_two_passes_replaces_the_memory_the_values_show(
        app: Container, scripted: ScriptedLLM) -> None:
    who = app.access.authenticate(app.admin.create_key("agent", {"acme": Access.READWRITE}).raw)
    app.memories.add_many(who, ["The print shop closes at 18:00.",
                                "Desk bookings are made in Robin."], "acme")  # flat: no call
    scripted.push(facts("The print shop closes at 19:00."))

    def answer(body: dict[str, Any]) -> Reply:  # the number the service gave the memory
        schema = body["response_format"]["json_schema"]["schema"]
        [number] = schema["$defs"]["MemoryVerdict"]["properties"]["memory"]["enum"]
        return verdicts(verdict(number, "none", "18:00", "19:00", still_true=False))

    scripted.fallback = answer
    try:
        result = app.memories.add(who, "The print shop now closes at 19:00.", "acme")
    finally:
        scripted.fallback = None

    space = app.store.directory.get_space_by_slug("acme")
    assert space is not None
    active = sorted(m.content for m in app.store.reads.list_memories(MemoryFilter(space.id), 10))
    assert result.usage.llm_calls == 2 and len(result.superseded) == 1
    assert active == ["Desk bookings are made in Robin.", "The print shop closes at 19:00."]
