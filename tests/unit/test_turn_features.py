"""Conversation features switched on and off (services/memories/conversation.py TurnFeatures,
MEMSPACE_CONVERSATION_FEATURES): each switch turns off its own rule and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from memspace.domain.models import Memory, ScoredMemory
from memspace.services.memories.conversation import FEATURES, TurnFeatures
from memspace.services.search.ranking import blend
from memspace.startup.settings import Settings
from tests.support import builders as b


def _hit(memory_id: str, score: float, speaker: str | None = None, follows: str | None = None,
         observed_at: datetime | None = None) -> ScoredMemory:
    return ScoredMemory(Memory(memory_id, "s", memory_id, "c", None, True, b.BASE, "t", memory_id,
                               speaker=speaker, follows=follows, observed_at=observed_at), score)


def test_features_are_named_all_none_or_one_by_one() -> None:
    assert TurnFeatures.parse("default") == TurnFeatures() == TurnFeatures(False, True, True, True)
    assert TurnFeatures.parse("all") == TurnFeatures(True, True, True, True)
    assert TurnFeatures.parse(" none ") == TurnFeatures(False, False, False, False)
    assert TurnFeatures.parse("speaker, TIME") == TurnFeatures(False, False, True, True)
    assert TurnFeatures().without("neighbours") == TurnFeatures(False, False, True, True)
    assert TurnFeatures().adding("context") == TurnFeatures.parse("all")
    assert set(FEATURES) == {"context", "neighbours", "speaker", "time"}
    with pytest.raises(ValueError, match=r"unknown conversation feature.*speakers"):
        TurnFeatures.parse("speakers")


def test_an_unknown_feature_in_the_settings_is_refused_at_startup() -> None:
    assert Settings(_env_file=None).conversation_features == "default"  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="neighbors"):
        Settings(_env_file=None, conversation_features="neighbors")  # type: ignore[call-arg]


def _lifted(features: TurnFeatures, query: str) -> dict[str, tuple[str, ...]]:
    when = datetime(2023, 8, 14, 12, tzinfo=UTC)
    hits = [_hit("a", 10.0, speaker="Ana", observed_at=when), _hit("b", 5.0, follows="a"),
            _hit("c", 1.0)]
    return {r.memory.id: r.matched_by for r in blend([], hits, query, features=features)}


def test_each_search_feature_switches_off_its_own_lift_only() -> None:
    query = "what did Ana say in August 2023"
    every = _lifted(TurnFeatures(), query)
    assert every == {"a": ("text", "speaker", "neighbour", "time"), "b": ("text", "neighbour"),
                     "c": ("text",)}
    assert _lifted(TurnFeatures().without("speaker"), query)["a"] == ("text", "neighbour", "time")
    assert _lifted(TurnFeatures().without("time"), query)["a"] == ("text", "speaker", "neighbour")
    assert _lifted(TurnFeatures().without("neighbours"), query) == {
        "a": ("text", "speaker", "time"), "b": ("text",), "c": ("text",)}
    assert _lifted(TurnFeatures.parse("none"), query) == {
        "a": ("text",), "b": ("text",), "c": ("text",)}


def test_by_default_a_turn_keeps_its_link_but_not_the_question_before() -> None:
    from memspace.domain.models import Access
    from memspace.services.search.search import SearchRequest
    from memspace.startup.container import build
    from memspace.stores.sqlite import SqliteStore
    from tests.support.fakes import HashEmbedder, StepClock

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    app = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder(),
                clock=StepClock())
    try:
        app.admin.create_space("acme")
        who = app.access.authenticate(app.admin.create_key(
            "agent", {"acme": Access.READWRITE}).raw)
        asked = app.memories.add(who, "Ana: how was the trip?", speaker="Ana").memories[0]
        reply = app.memories.add(who, "Bo: great", speaker="Bo").memories[0]
        stored = app.store.reads.get_memory(reply.space_id, reply.id)
        assert stored is not None and stored.follows == asked.id and stored.context is None
        assert app.search.features == TurnFeatures.parse("neighbours,speaker,time")
        hits = app.search.search(who, SearchRequest(query="trip", space="acme")).hits
        assert {h.memory.id for h in hits} >= {asked.id}
    finally:
        app.close()
