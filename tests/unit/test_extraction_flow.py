"""The add pipeline with a (scripted) model: facts, relations, guards, fallbacks, races."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memspace.domain.errors import ExtractionFailed, Unavailable
from memspace.domain.models import MemoryFilter
from memspace.present.json import add_json
from tests.support.fakes import ScriptedExtractor, fact
from tests.unit.conftest import World


def _model(world: World) -> ScriptedExtractor:
    assert world.extractor is not None
    return world.extractor


def _space_id(world: World, slug: str = "acme") -> str:
    space = world.app.store.directory.get_space_by_slug(slug)
    assert space is not None
    return space.id


def test_content_is_split_into_facts_with_usage(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    _model(model_world).facts(fact("Ana leads the mobile team", "person"),
                              fact("The mobile app ships every two weeks", "process"))
    result = model_world.app.memories.add(who, "Ana leads mobile; we ship every two weeks")
    assert (result.status, result.mode) == ("created", "extracted")
    assert [(m.content, m.category) for m in result.memories] == [
        ("Ana leads the mobile team", "person"), ("The mobile app ships every two weeks", "process")]
    assert add_json(result)["usage"] == {"llmCalls": 1, "promptTokens": 100, "completionTokens": 20}


def test_the_model_sees_the_most_similar_active_memories_as_numbered_candidates(
    model_world: World,
) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    for text in ["deploy window is friday", "deploy needs approval", "lunch is at noon"]:
        model.facts(fact(text))
        model_world.app.memories.add(who, text)
    model.facts(fact("deploy window is thursday"))
    at = datetime(2026, 5, 1, tzinfo=UTC)
    model_world.app.memories.add(who, "deploy window moved to thursday", speaker="ana", observed_at=at)
    content, candidates, speaker, observed = model.calls[-1]
    assert (content, speaker, observed) == ("deploy window moved to thursday", "ana", at)
    assert [c.number for c in candidates] == [0, 1, 2]
    assert candidates[0].content == "deploy window is friday"


def test_the_model_sees_at_most_five_candidates(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    for n in range(7):
        model.facts(fact(f"deploy rule number {n}"))
        model_world.app.memories.add(who, f"deploy rule number {n}")
    model.facts(fact("deploy rule number 8"))
    model_world.app.memories.add(who, "deploy rule number 8")
    assert [c.number for c in model.calls[-1][1]] == [0, 1, 2, 3, 4]


def test_updates_deactivates_the_old_memory(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("The deploy window is Friday afternoon"))
    old = model_world.app.memories.add(who, "Deploy window: Friday afternoon").memories[0]
    model.facts(fact("The deploy window is Thursday afternoon", old=(0, "updates")))
    result = model_world.app.memories.add(who, "Deploys moved to Thursday afternoon")
    assert result.superseded == [old.id]
    assert [(r.type.value, r.target_id, r.reason) for r in result.relations] == [
        ("UPDATES", old.id, "updates because test")]
    retired = model_world.app.store.reads.get_memory(_space_id(model_world), old.id)
    assert retired is not None and not retired.active
    assert retired.invalidated_by == result.memories[0].id


def test_extends_and_derives_keep_everything_active(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("Billing runs on Postgres"), fact("Postgres backups run nightly"))
    base = model_world.app.memories.add(who, "Billing runs on Postgres, backed up nightly").memories
    model.facts(fact("Billing Postgres is version 16", a=(0, "extends")),
                fact("Billing data is backed up nightly", a=(0, "derives"), b=(1, "derives")))
    result = model_world.app.memories.add(who, "Billing is on Postgres 16")
    assert result.superseded == []
    assert sorted(r.type.value for r in result.relations) == ["DERIVES", "DERIVES", "EXTENDS"]
    active = model_world.app.store.reads.list_memories(MemoryFilter(_space_id(model_world)), 10)
    assert len(active) == 4 and {m.id for m in base} <= {m.id for m in active}


def test_an_update_between_unrelated_facts_is_refused(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("Lunch is served at noon"))
    lunch = model_world.app.memories.add(who, "Lunch is served at noon").memories[0]
    model.facts(fact("Kubernetes clusters autoscale nodes", x=(0, "updates")))
    result = model_world.app.memories.add(who, "Kubernetes clusters autoscale nodes")
    assert result.superseded == [] and result.relations == []
    assert "look unrelated" in result.warnings[0]
    kept = model_world.app.store.reads.get_memory(_space_id(model_world), lunch.id)
    assert kept is not None and kept.active


def test_a_failing_model_still_stores_the_content_flat(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    _model(model_world).fail(ExtractionFailed("model openai/x timed out after 30 s", 1, 0, 0))
    result = model_world.app.memories.add(who, "Never lose this sentence")
    assert (result.status, result.mode) == ("created", "flat")
    assert result.memories[0].content == "Never lose this sentence"
    assert "timed out" in result.warnings[0] and result.usage.llm_calls == 1


def test_an_extractor_bug_still_stores_the_content_flat_with_a_warning(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})

    def broken() -> None:
        raise ValueError("substring not found")

    _model(model_world).before_answer = broken
    result = model_world.app.memories.add(who, "Never lose this sentence either")
    assert (result.status, result.mode) == ("created", "flat")
    assert result.memories[0].content == "Never lose this sentence either"
    assert "failed unexpectedly" in result.warnings[0] and "ValueError" in result.warnings[0]


def test_an_exact_repeat_costs_no_model_call(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("Use ruff for linting"))
    model_world.app.memories.add(who, "Use ruff for linting")
    again = model_world.app.memories.add(who, "use ruff for linting")
    assert again.status == "duplicate" and len(model.calls) == 1


def test_facts_that_are_all_known_make_a_duplicate(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("Use ruff for linting"))
    first = model_world.app.memories.add(who, "Use ruff").memories[0]
    model.facts(fact("Use ruff for linting"))
    again = model_world.app.memories.add(who, "We lint with ruff")
    assert again.status == "duplicate" and [m.id for m in again.memories] == [first.id]


def test_two_updates_of_one_memory_at_once_leave_one_head_and_lose_nothing(
    model_world: World,
) -> None:
    agent_a = model_world.principal({"acme": "rw"}, name="agent-a")
    agent_b = model_world.principal({"acme": "rw"}, name="agent-b")
    model = _model(model_world)
    model.facts(fact("The on-call rotation is weekly"))
    old = model_world.app.memories.add(agent_a, "On-call rotates weekly").memories[0]
    model.facts(fact("The on-call rotation is every two weeks", x=(0, "updates")))
    # While B's model is thinking, A corrects the same memory.
    model.before_answer = lambda: model_world.app.memories.correct(
        agent_a, old.id, "The on-call rotation is daily")
    result = model_world.app.memories.add(agent_b, "On-call now rotates every two weeks")
    space_id = _space_id(model_world)
    heads = model_world.app.store.reads.list_memories(MemoryFilter(space_id), 10)
    assert [m.content for m in heads] == ["The on-call rotation is every two weeks"]
    everything = model_world.app.store.reads.list_memories(MemoryFilter(space_id, include_inactive=True), 10)
    assert len(everything) == 3  # nothing lost: old, A's correction, B's fact
    a_fix = next(m for m in everything if m.content == "The on-call rotation is daily")
    assert a_fix.invalidated_by == result.memories[0].id
    assert "changed while this was saved" in result.warnings[0]


def test_a_retried_call_with_the_same_idempotency_key_replays_the_first_result(
    model_world: World,
) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("Retries must be safe"))
    first = model_world.app.memories.add(who, "Retries must be safe", idempotency_key="req-1")
    again = model_world.app.memories.add(who, "Retries must be safe!!", idempotency_key="req-1")
    assert add_json(again) == {**add_json(first), "replayed": True}
    assert len(model.calls) == 1


def test_a_failed_call_releases_its_idempotency_key(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)

    def store_goes_away() -> None:
        raise Unavailable("the store does not answer")

    model.before_answer = store_goes_away
    model.facts(fact("Unlucky first try"))
    with pytest.raises(Unavailable):
        model_world.app.memories.add(who, "Unlucky first try", idempotency_key="k")
    assert model_world.app.memories.add(who, "Unlucky first try", idempotency_key="k").status == (
        "created")


def test_model_usage_adds_up_per_space(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("One"), prompt_tokens=10, completion_tokens=1)
    model_world.app.memories.add(who, "One")
    model.fail(ExtractionFailed("rate limited (429)", 1, 7, 0))
    model_world.app.memories.add(who, "Two")
    totals = model_world.app.store.ledger.usage_totals(_space_id(model_world))
    assert (totals.llm_calls, totals.prompt_tokens, totals.completion_tokens) == (2, 17, 1)
