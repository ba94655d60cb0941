"""parse_answer over any text a model may send: a FactsAnswer, or InvalidAnswer and nothing else.

Small models answer with prose, fences, half an object or numbers too long for Python; every one
of those must reach the extractor's retry and the flat fallback as InvalidAnswer, never as a bare
ValueError or RecursionError that escapes the add (issue 13).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memspace.llm.extractor import InvalidAnswer, parse_answer
from memspace.llm.schema import FactsAnswer

VALID = json.dumps({"facts": [
    {"text": "Staging runs Postgres 16.", "category": "fact",
     "relations": [{"candidate": 0, "type": "updates", "reason": "version bumped"}]},
    {"text": "Alice owns the migration.", "category": "ownership", "relations": []},
]})
# derandomize: the same examples on every run, so a CI failure reproduces locally; no deadline,
# because a shared 2-core machine makes any per-example time limit flaky.
FUZZ = settings(max_examples=400, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["facts", "text", "category", "relations", "candidate", "type", "reason"])
        | st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def parses_or_refuses(text: str) -> FactsAnswer | None:
    try:
        return parse_answer(text)
    except InvalidAnswer as err:
        assert str(err), "an InvalidAnswer must say what is wrong (it is sent back for the retry)"
        return None


@FUZZ
@given(st.text())
def test_any_text_parses_or_raises_invalid_answer(text: str) -> None:
    parses_or_refuses(text)


WRAPPINGS = ["{}", "```json\n{}\n```", "<think>hm</think>{}", "Sure! {} Hope it helps"]


@FUZZ
@given(json_values, st.sampled_from(WRAPPINGS))
def test_any_json_in_any_wrapping_parses_or_raises_invalid_answer(value: object, wrapping: str) -> None:
    parses_or_refuses(wrapping.replace("{}", json.dumps(value)))


@FUZZ
@given(st.text(alphabet='{}[]":,0123456789 factsxe\\', max_size=200))
def test_json_punctuation_soup_parses_or_raises_invalid_answer(text: str) -> None:
    parses_or_refuses(text)


@pytest.mark.parametrize("cut", range(len(VALID)))
def test_every_truncation_of_a_valid_answer_is_refused_as_invalid(cut: int) -> None:
    with pytest.raises(InvalidAnswer):
        parse_answer(VALID[:cut])


@pytest.mark.parametrize("text", [
    "this is not json at all {",
    "still not json",
    "} before {",
    "[" * 100_000,
    '{"facts": ' + "[" * 5_000 + "]" * 5_000 + "}",
    '{"facts": [{"text": "a", "category": "b", "relations": [{"candidate": ' + "1" * 5_000
    + ', "type": "updates"}]}]}',
    '{"facts": [{"text": "a", "category": "b", "relations": [{"candidate": 1e400, "type": "updates"}]}]}',
    "\x00",
    "```json\n```",
])
def test_answers_small_models_give_are_refused_as_invalid(text: str) -> None:
    with pytest.raises(InvalidAnswer):
        parse_answer(text)


def test_a_valid_answer_survives_fences_think_blocks_and_chatter() -> None:
    for text in (VALID, f"```json\n{VALID}\n```", f"<think>x</think>{VALID}", f"Here: {VALID} done."):
        answer = parse_answer(text)
        assert [f.text for f in answer.facts] == ["Staging runs Postgres 16.", "Alice owns the migration."]
