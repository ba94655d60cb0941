"""Versions of facts (optimistic concurrency) and similar memories on save, in the services."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Any

import pytest

from memspace.domain.errors import Conflict, InvalidInput, StaleVersion, Unavailable
from memspace.domain.models import ScoredMemory
from memspace.domain.ports import WriteBatch
from memspace.present.json import add_json
from memspace.services.memories.restatement import NEIGHBOURS
from memspace.services.memories.similar import MAX_SIMILAR, known_nearest, start_similar
from tests.support import builders as b
from tests.support.fakes import ScriptedExtractor, fact
from tests.unit.conftest import World


def _model(world: World) -> ScriptedExtractor:
    assert world.extractor is not None
    return world.extractor


def test_a_fact_the_model_updates_carries_the_next_version(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    model.facts(fact("The deploy window is Friday afternoon"))
    [old] = model_world.app.memories.add(who, "deploy window is friday afternoon").memories
    model.facts(fact("The deploy window is Thursday afternoon", x=(0, "updates")))
    [new] = model_world.app.memories.add(who, "deploy window moved to thursday").memories
    assert (old.version, new.version) == (1, 2)


def test_similar_memories_are_listed_only_for_facts_the_model_related_to_nothing(
    model_world: World,
) -> None:
    who = model_world.principal({"acme": "rw"})
    model = _model(model_world)
    for text in ("deploy window is friday afternoon", "the staging cluster runs kubernetes nodes"):
        model.facts(fact(text))
        model_world.app.memories.add(who, text)
    model.facts(fact("deploy window is friday afternoon and evening", x=(0, "extends")),
                fact("the staging cluster runs kubernetes pods"))
    result = model_world.app.memories.add(who, "deploy window is friday afternoon and evening")
    answer = add_json(result)
    assert [s["content"] for s in answer["similar"]] == ["the staging cluster runs kubernetes nodes"]
    assert answer["similar"][0]["similarTo"] == result.memories[1].id
    assert answer["reviewSuggested"] is True


def test_flat_mode_lists_at_most_three_similar_memories_most_similar_first(world: World) -> None:
    who = world.principal({"acme": "rw"})
    for n in range(5):  # words of their own between the shared ones: none restates another
        extra = " ".join(f"w{i}" for i in range(n))
        world.app.memories.add(who, f"alpha v{n} beta gamma x{n} delta {extra}")
    answer = add_json(world.app.memories.add(who, "alpha beta gamma delta epsilon"))
    similarities = [s["similarity"] for s in answer["similar"]]
    assert len(similarities) == 3 and similarities == sorted(similarities, reverse=True)
    unrelated = add_json(world.app.memories.add(who, "lunch is served at noon"))
    assert unrelated["similar"] == [] and unrelated["reviewSuggested"] is False


def test_a_flat_add_reads_its_neighbours_once_for_both_the_verdict_and_the_similar_list(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # On a space the replica does not hold each read is a pass over the space or an index
    # query: the restatement verdict and the similar list share one.
    who = world.principal({"acme": "rw"})
    for n in range(5):
        extra = " ".join(f"w{i}" for i in range(n))
        world.app.memories.add(who, f"alpha v{n} beta gamma x{n} delta {extra}")
    search: Any = world.app.store.search
    reads: list[str] = []
    for name in ("vector_search", "nearest_active"):
        plain = getattr(search, name)

        def counted(*args: Any, _plain: Any = plain, _name: str = name, **kw: Any) -> Any:
            reads.append(_name)
            return _plain(*args, **kw)

        monkeypatch.setattr(search, name, counted)
    answer = add_json(world.app.memories.add(who, "alpha beta gamma delta epsilon"))
    assert reads == ["vector_search"]
    assert len(answer["similar"]) == 3  # as many as a lookup of their own listed


def test_the_neighbours_read_covers_the_similar_list() -> None:
    # known_nearest answers the similar lookup from the verdict's neighbours: enough of them
    # for MAX_SIMILAR besides the memory just saved.
    assert MAX_SIMILAR + 1 <= NEIGHBOURS
    hits = [ScoredMemory(replace(b.memory("s", f"m{n}", [1.0, 0.0]), active=n != 1),
                         0.9 - n / 10) for n in range(5)]
    nearest = known_nearest(hits)
    assert [h.memory.content for h in nearest("s", [1.0, 0.0], 2, 0.55)] == ["m0", "m2"]
    assert [h.memory.content for h in nearest("s", [1.0, 0.0], 4, 0.0)] == [
        "m0", "m2", "m3", "m4"]


def test_a_correction_that_loses_the_race_is_refused_as_stale(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = world.principal({"acme": "rw"})
    rival = world.principal({"acme": "rw"}, name="rival")
    [memory] = world.app.memories.add(who, "The API limit is 100 per minute").memories
    writes: Any = world.app.store.writes
    write = writes.write

    def rival_first(batch: WriteBatch) -> None:
        # Both read v1; the rival's correction commits between our check and our write.
        monkeypatch.setattr(writes, "write", write)
        world.app.memories.correct(rival, memory.id, "The API limit is 300 per minute")
        write(batch)

    monkeypatch.setattr(writes, "write", rival_first)
    with pytest.raises(StaleVersion) as refused:
        world.app.memories.correct(who, memory.id, "The API limit is 500 per minute",
                                   expected_version=1)
    assert (refused.value.have, refused.value.current) == (1, 2)
    assert "you have v1, current is v2" in refused.value.message


def test_a_forget_that_loses_the_race_is_refused_as_stale(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = world.principal({"acme": "rw"})
    [memory] = world.app.memories.add(who, "The VPN needs a hardware token").memories
    writes: Any = world.app.store.writes
    forget = writes.forget

    def someone_first(*args: Any) -> Any:
        monkeypatch.setattr(writes, "forget", forget)
        world.app.memories.correct(who, memory.id, "The VPN needs an app token")
        return forget(*args)

    monkeypatch.setattr(writes, "forget", someone_first)
    with pytest.raises(StaleVersion, match="you have v1, current is v2"):
        world.app.memories.forget(who, memory.id, expected_version=1)


def test_naming_an_old_memory_with_the_current_version_points_at_the_current_one(
    world: World,
) -> None:
    who = world.principal({"acme": "rw"})
    [old] = world.app.memories.add(who, "Standup is at 9:30").memories
    [new] = world.app.memories.correct(who, old.id, "Standup is at 10:00").memories
    with pytest.raises(Conflict, match=f"pass memoryId='{new.id}'"):
        world.app.memories.correct(who, old.id, "Standup is at 10:30", expected_version=2)
    with pytest.raises(InvalidInput, match="starts at 1"):
        world.app.memories.correct(who, new.id, "Standup is at 10:30", expected_version=0)


class _Nearest:
    """A SearchStore's nearest_active alone: answers `hits`, or raises `error`, and records the
    thread that asked."""

    def __init__(self, concurrent_reads: bool, error: Exception | None = None) -> None:
        self.concurrent_reads = concurrent_reads
        self.error = error
        self.threads: list[str] = []

    def nearest_active(self, space_id: str, embedding: Any, limit: int,
                       min_score: float) -> list[Any]:
        self.threads.append(threading.current_thread().name)
        if self.error is not None:
            raise self.error
        return []


@pytest.mark.parametrize("concurrent", [True, False])
def test_similar_memories_are_looked_up_beside_the_write_only_where_the_store_allows(
    concurrent: bool,
) -> None:
    store = _Nearest(concurrent)
    memory = b.memory("space", "Deploys happen on Tuesdays", [1.0, 0.0])
    answer = start_similar(store, "space", memory, 0.45)  # type: ignore[arg-type]
    if not concurrent:
        assert store.threads == []  # nothing runs before the write is done
    assert answer() == []
    [thread] = store.threads
    assert thread.startswith("memspace-early-read") == concurrent


def test_a_failed_lookup_of_similar_memories_leaves_the_add_standing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = _Nearest(True, Unavailable("Neo4j at bolt://x is not answering"))
    memory = b.memory("space", "Deploys happen on Tuesdays", [1.0, 0.0])
    with caplog.at_level(logging.WARNING):
        assert start_similar(store, "space", memory, 0.45)() == []  # type: ignore[arg-type]
    assert f"similar memories of {memory.id} not listed: Neo4j at bolt://x" in caplog.text
