"""LitellmExtractor through the real litellm call path, against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import FACT_TYPES, Candidate
from memspace.domain.models import RelationType
from memspace.llm.extractor import ANSWER_BASE_TOKENS, LitellmExtractor, parse_answer
from memspace.llm.prompts import load_prompt, prompts_dir
from memspace.llm.schema import FactsAnswer
from tests.support.scripted_llm import Delay, Reply, ScriptedLLM, Status, refused_url

AT = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
CANDIDATES = [
    Candidate(0, "Marco owns the billing service.", "ownership", datetime(2026, 1, 12, tzinfo=UTC)),
    Candidate(1, "Production deploys happen on Thursdays.", "convention", datetime(2026, 2, 2, tzinfo=UTC)),
    Candidate(2, "The staging database runs Postgres 15.", "fact", datetime(2026, 2, 20, tzinfo=UTC)),
]


def fact(text: str, category: str = "fact", *relations: tuple[int, str]) -> dict[str, object]:
    return {"text": text, "category": category,
            "relations": [{"candidate": n, "type": kind, "reason": f"{kind} {n}"} for n, kind in relations]}


def extractor(url: str, timeout_s: float = 5.0) -> LitellmExtractor:
    # These tests are about the protocol (requests, retries, parsing); their scripted facts are
    # not taken from the content, so the grounding guard is off (tests/unit/test_grounding.py).
    return LitellmExtractor("openai/scripted", api_base=url, api_key="test", timeout_s=timeout_s,
                            grounding=False)


def test_content_is_split_into_several_facts_with_one_call(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("Priya owns the billing service.", "ownership"),
                                   fact("Production deploys happen on Wednesdays.", "convention"),
                                   fact("The team adopted Renovate for dependency updates.", "decision")]},
                        prompt_tokens=321, completion_tokens=54))

    result = extractor(scripted.url).extract("three things happened", CANDIDATES)

    assert [f.text for f in result.facts] == ["Priya owns the billing service.",
                                              "Production deploys happen on Wednesdays.",
                                              "The team adopted Renovate for dependency updates."]
    assert [f.category for f in result.facts] == ["ownership", "convention", "decision"]
    assert (result.llm_calls, result.prompt_tokens, result.completion_tokens) == (1, 321, 54)
    assert len(scripted.requests) == 1


def test_relation_types_are_parsed_whatever_their_case(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [
        fact("Priya owns the billing service.", "ownership", (0, "UPDATES")),
        fact("Deploys start at 10:00 UTC.", "convention", (1, "Extends")),
        fact("Billing deploys need Priya on Thursdays.", "fact", (0, "derives"), (1, "derives")),
    ]}))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    relations = [[(r.candidate, r.type) for r in f.relations] for f in result.facts]
    assert relations == [[(0, RelationType.UPDATES)], [(1, RelationType.EXTENDS)],
                         [(0, RelationType.DERIVES), (1, RelationType.DERIVES)]]
    assert result.facts[0].relations[0].reason == "UPDATES 0"


def test_a_contradiction_is_no_edge_but_a_pair_for_the_conflict_queue(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [
        fact("Support is open on holidays.", "fact", (0, "CONTRADICTS"), (1, "extends")),
    ]}))

    [said] = extractor(scripted.url).extract("news", CANDIDATES).facts

    assert [(r.candidate, r.type) for r in said.relations] == [(1, RelationType.EXTENDS)]
    assert said.contradicts == ((0, "CONTRADICTS 0"),)


def test_relations_to_numbers_not_offered_are_dropped(scripted: ScriptedLLM,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    scripted.push(Reply({"facts": [fact("Priya owns billing.", "ownership", (7, "updates"), (0, "updates")),
                                   fact("Deploys are on Wednesdays.", "convention", (-1, "updates"))]}))

    with caplog.at_level(logging.INFO, logger="memspace.llm.extractor"):
        result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [[r.candidate for r in f.relations] for f in result.facts] == [[0], []]
    assert "never offered [-1, 7]; dropped 2" in caplog.text


def test_with_no_candidates_every_relation_is_dropped(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("Priya owns billing.", "ownership", (0, "updates"))]}))

    result = extractor(scripted.url).extract("Priya owns billing.", [])

    assert result.facts[0].relations == ()
    assert "(none)" in scripted.requests[0]["messages"][1]["content"]


def test_a_second_relation_to_the_same_candidate_is_ignored(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [
        fact("Priya owns billing.", "ownership", (0, "updates"), (0, "extends"))]}))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [(r.candidate, r.type) for r in result.facts[0].relations] == [(0, RelationType.UPDATES)]


def test_blank_facts_are_dropped_and_text_and_category_normalised(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [{"text": "   ", "category": "fact", "relations": []},
                                   {"text": "  Priya owns billing.  ", "category": " Ownership "}]}))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [(f.text, f.category, f.relations) for f in result.facts] == [
        ("Priya owns billing.", "ownership", ())]


def test_a_fenced_answer_is_accepted_without_a_retry(scripted: ScriptedLLM) -> None:
    body = json.dumps({"facts": [fact("Priya owns billing.")]})
    scripted.push(Reply(f"<think>numbers…</think>\n```json\n{body}\n```"))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [f.text for f in result.facts] == ["Priya owns billing."]
    assert result.llm_calls == 1


def test_invalid_json_is_retried_once_with_the_error_and_tokens_are_summed(scripted: ScriptedLLM) -> None:
    scripted.push(Reply("Sure! Here are the facts: Priya owns billing", prompt_tokens=100,
                        completion_tokens=9),
                  Reply({"facts": [fact("Priya owns billing.")]}, prompt_tokens=140, completion_tokens=12))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [f.text for f in result.facts] == ["Priya owns billing."]
    assert (result.llm_calls, result.prompt_tokens, result.completion_tokens) == (2, 240, 21)
    retry = scripted.requests[1]["messages"]
    assert retry[:2] == scripted.requests[0]["messages"]
    assert retry[2] == {"role": "assistant", "content": "Sure! Here are the facts: Priya owns billing"}
    assert retry[3]["role"] == "user" and "not valid JSON" in retry[3]["content"]


def test_a_schema_violation_is_retried_like_invalid_json(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("Priya owns billing.", "ownership", (0, "replaces"))]}),
                  Reply({"facts": [fact("Priya owns billing.", "ownership", (0, "updates"))]}))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert result.llm_calls == 2
    assert "facts.0.relations.0.type" in scripted.requests[1]["messages"][3]["content"]


def test_invalid_twice_fails_after_two_calls_with_their_tokens(scripted: ScriptedLLM) -> None:
    scripted.push(Reply("not json", prompt_tokens=100, completion_tokens=3),
                  Reply({"facts": []}, prompt_tokens=120, completion_tokens=4))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert (failed.value.llm_calls, failed.value.prompt_tokens, failed.value.completion_tokens) == (2, 220, 7)
    assert "openai/scripted gave no valid answer in 2 call(s)" in failed.value.message
    assert "facts" in failed.value.message


def test_a_timeout_fails_at_once_naming_the_model_and_the_limit(scripted: ScriptedLLM) -> None:
    scripted.push(Delay(5))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url, timeout_s=0.5).extract("news", CANDIDATES)

    assert failed.value.message == "model openai/scripted timed out after 0.5 s"
    assert failed.value.llm_calls == 1
    assert len(scripted.requests) == 1


def test_a_429_with_a_short_retry_after_is_retried_once(scripted: ScriptedLLM) -> None:
    scripted.push(Status(429, "slow down", retry_after=0.1), Reply({"facts": [fact("Priya owns billing.")]}))

    result = extractor(scripted.url).extract("news", CANDIDATES)

    assert [f.text for f in result.facts] == ["Priya owns billing."]
    assert result.llm_calls == 2


def test_a_429_twice_fails_as_rate_limited(scripted: ScriptedLLM) -> None:
    scripted.push(Status(429, retry_after=0.1), Status(429, retry_after=0.1))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert failed.value.message == "model openai/scripted is rate limited (429), retry after 0.1 s"
    assert failed.value.llm_calls == 2


def test_a_429_asking_for_a_long_wait_fails_without_waiting(scripted: ScriptedLLM) -> None:
    scripted.push(Status(429, retry_after=30))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert failed.value.message == "model openai/scripted is rate limited (429), retry after 30 s"
    assert failed.value.llm_calls == 1


@pytest.mark.parametrize("code", [500, 502, 503, 504])
def test_a_server_error_fails_at_once_with_its_status(scripted: ScriptedLLM, code: int) -> None:
    scripted.push(Status(code, "model is overloaded"))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert failed.value.message == (
        f"model openai/scripted answered HTTP {code}: OpenAIException - model is overloaded")
    assert failed.value.llm_calls == 1


def test_a_rejected_key_says_which_setting_to_check(scripted: ScriptedLLM) -> None:
    scripted.push(Status(401, "invalid api key"))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert failed.value.message == (
        "model openai/scripted rejected the API key (401); check MEMSPACE_LLM_API_KEY")


def test_an_invalid_answer_then_a_server_error_keeps_the_spent_tokens(scripted: ScriptedLLM) -> None:
    scripted.push(Reply("nope", prompt_tokens=90, completion_tokens=2), Status(500))

    with pytest.raises(ExtractionFailed) as failed:
        extractor(scripted.url).extract("news", CANDIDATES)

    assert (failed.value.llm_calls, failed.value.prompt_tokens, failed.value.completion_tokens) == (2, 90, 2)


def test_a_refused_connection_fails_at_once_naming_the_address() -> None:
    url = refused_url()

    with pytest.raises(ExtractionFailed) as failed:
        extractor(url).extract("news", CANDIDATES)

    assert failed.value.message == f"model openai/scripted: connection refused at {url}"
    assert failed.value.llm_calls == 1


def test_the_prompt_carries_numbered_candidates_speaker_and_observation_time(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("Priya took over billing on 2026-03-09.")]}))

    extractor(scripted.url).extract("I took over billing yesterday.", CANDIDATES, speaker="Priya",
                                    observed_at=AT)

    system, user = scripted.requests[0]["messages"]
    assert system["role"] == "system" and "updates" in system["content"]
    assert user["role"] == "user"
    assert "Speaker: Priya\n" in user["content"]
    assert "Observed at: Tuesday 2026-03-10 09:30 UTC\n" in user["content"]
    assert "[0] (ownership, 2026-01-12) Marco owns the billing service.\n" in user["content"]
    assert "[2] (fact, 2026-02-20) The staging database runs Postgres 15.\n" in user["content"]
    assert "<note>\nI took over billing yesterday.\n</note>" in user["content"]
    assert "EXISTING MEMORIES (already saved" in user["content"]


def test_without_speaker_or_time_the_prompt_says_they_are_not_given(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("We deploy on Fridays.")]}))

    extractor(scripted.url).extract("We deploy on Fridays.", CANDIDATES)

    user = scripted.requests[0]["messages"][1]["content"]
    assert "Speaker: (not given)\n" in user and "Observed at: (not given)\n" in user


def test_the_request_asks_for_the_json_schema_at_temperature_zero(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("Priya owns billing.")]}))

    extractor(scripted.url).extract("news", CANDIDATES)

    request = scripted.requests[0]
    assert request["model"] == "scripted"
    assert request["temperature"] == 0
    # A model looping inside the grammar is cut off, not waited on until the timeout.
    assert request["max_tokens"] == ANSWER_BASE_TOKENS + len("news") // 2
    response_format = request["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "facts"
    assert response_format["json_schema"]["strict"] is False
    schema = response_format["json_schema"]["schema"]
    assert schema["properties"] == FactsAnswer.model_json_schema(mode="serialization")["properties"]
    # The server's grammar can only name the candidates offered, and only types of FACT_TYPES.
    assert schema["$defs"]["RelationItem"]["properties"]["candidate"]["enum"] == [0, 1, 2]
    assert schema["$defs"]["FactItem"]["properties"]["type"]["enum"] == list(FACT_TYPES)


def test_without_candidates_the_schema_allows_no_relation(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [fact("We deploy on Fridays.")]}))

    extractor(scripted.url).extract("We deploy on Fridays.", [])

    schema = scripted.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["FactItem"]["properties"]["relations"]["maxItems"] == 0


def test_a_fact_type_outside_the_set_or_missing_is_a_note(scripted: ScriptedLLM) -> None:
    scripted.push(Reply({"facts": [{**fact("We deploy on Fridays."), "type": "Failed approach"},
                                   {**fact("Staging is reset nightly."), "type": "gossip"},
                                   fact("Bo owns search.")]}))

    result = extractor(scripted.url).extract("news", [])

    assert [f.type for f in result.facts] == ["failed_approach", "note", "note"]


def test_parse_answer_reports_where_the_json_breaks() -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_answer('{"facts": [')


def test_the_prompt_file_is_found_and_has_its_slots() -> None:
    prompt = load_prompt("extract_facts.v1")

    assert prompt.slots == {"speaker", "observed_at", "candidates", "content"}
    assert (prompts_dir() / "extract_facts.v1.md").is_file()


def test_a_prompt_is_rendered_in_one_pass_and_refuses_missing_values(tmp_path: Path) -> None:
    (tmp_path / "echo.v1.md").write_text("<!-- header {{ignored}} -->\n# system\nS {{a}}\n# user\nU {{b}}\n")
    prompt = load_prompt("echo.v1", tmp_path)

    assert prompt.render(a="{{b}}", b="x") == ("S {{b}}", "U x")
    with pytest.raises(ValueError, match=r"missing values \['b'\]"):
        prompt.render(a="1")
