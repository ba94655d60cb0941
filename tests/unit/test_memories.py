from __future__ import annotations

import threading

import pytest

from memspace.domain.errors import Conflict, Forbidden, InvalidInput, NotFound, Unavailable
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.present.json import add_json
from tests.unit.conftest import World


def test_add_stores_one_flat_memory_with_its_author(world: World) -> None:
    who = world.principal({"acme": "rw"}, name="coder")
    result = world.app.memories.add(who, "  Releases are cut on Mondays ", category="Process")
    assert (result.status, result.mode, result.space) == ("created", "flat", "acme")
    [memory] = result.memories
    assert (memory.content, memory.category, memory.created_by) == (
        "Releases are cut on Mondays", "process", "coder")
    assert add_json(result)["usage"] == {"llmCalls": 0, "promptTokens": 0, "completionTokens": 0}


def test_an_exact_repeat_is_a_duplicate_without_embedding(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Releases are cut on Mondays")
    calls = world.embedder.calls
    again = world.app.memories.add(who, "releases   ARE cut on mondays")
    assert again.status == "duplicate" and again.memories[0].id == first.memories[0].id
    assert world.embedder.calls == calls


@pytest.mark.parametrize("content, words", [("", "empty"), ("  \n ", "empty"), (None, "empty"),
                                            ("x" * 201, "at most 200")])
def test_unusable_content_is_refused_and_nothing_is_written(
    world: World, content: str | None, words: str
) -> None:
    who = world.principal({"acme": "rw"})
    with pytest.raises(InvalidInput, match=words):
        world.app.memories.add(who, content)
    space = world.app.store.directory.get_space_by_slug("acme")
    assert space is not None and world.app.store.directory.space_stats(space.id).active_memories == 0


def test_correct_replaces_the_fact_and_keeps_the_old_one_as_history(world: World) -> None:
    who = world.principal({"acme": "rw"})
    old = world.app.memories.add(who, "The CI runs on Jenkins", category="tooling").memories[0]
    result = world.app.memories.correct(who, old.id, "The CI runs on GitHub Actions", reason="moved")
    [new] = result.memories
    assert result.superseded == [old.id] and new.category == "tooling"
    detail = world.app.memories.get(who, new.id)
    assert [(r.type.value, r.target_id, r.reason) for r in detail.relations] == [
        ("UPDATES", old.id, "moved")]
    assert detail.related[0].memory.active is False
    with pytest.raises(Conflict, match="already replaced"):
        world.app.memories.correct(who, old.id, "The CI runs on CircleCI")


def test_a_correction_must_change_something(world: World) -> None:
    who = world.principal({"acme": "rw"})
    old = world.app.memories.add(who, "Ports are 8000 and 8001").memories[0]
    with pytest.raises(InvalidInput, match="exactly what"):
        world.app.memories.correct(who, old.id, "ports are 8000 and 8001")


def test_read_keys_cannot_add_correct_or_forget(world: World) -> None:
    writer = world.principal({"acme": "rw"})
    reader = world.principal({"acme": "r"}, name="reader")
    memory = world.app.memories.add(writer, "Fact one").memories[0]
    with pytest.raises(Forbidden):
        world.app.memories.add(reader, "Fact two")
    with pytest.raises(Forbidden):
        world.app.memories.correct(reader, memory.id, "Fact one, corrected")
    with pytest.raises(Forbidden):
        world.app.memories.forget(reader, memory.id)


def test_forget_by_id_or_exact_content(world: World) -> None:
    who = world.principal({"acme": "rw"})
    one = world.app.memories.add(who, "Temporary note one").memories[0]
    world.app.memories.add(who, "Temporary note two")
    assert world.app.memories.forget(who, memory_id=one.id, reason="done").forget_reason == "done"
    gone = world.app.memories.forget(who, content="temporary NOTE two")
    assert gone.forget_reason == "forgotten on request"
    with pytest.raises(NotFound, match="exactly that content"):
        world.app.memories.forget(who, content="never said")
    with pytest.raises(InvalidInput):
        world.app.memories.forget(who)


def test_memories_of_another_space_are_not_found(world: World) -> None:
    mine = world.principal({"acme": "rw"})
    theirs = world.principal({"other": "rw"}, name="outsider")
    memory = world.app.memories.add(mine, "Our secret").memories[0]
    with pytest.raises(NotFound):
        world.app.memories.get(theirs, memory.id)
    with pytest.raises(NotFound):
        world.app.memories.correct(theirs, memory.id, "Their version")
    space = world.app.store.directory.get_space_by_slug("acme")
    assert space is not None
    assert [m.active for m in world.app.store.reads.list_memories(MemoryFilter(space.id), 10)] == [True]


def test_listing_pages_are_bound_to_their_query(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "rw"})
    for i in range(5):
        world.app.memories.add(who, f"note {i}", space="acme")
    _, first = world.app.memories.list(who, "acme", limit=2)
    assert first.next_cursor is not None
    _, second = world.app.memories.list(who, "acme", limit=2, cursor=first.next_cursor)
    assert [m.content for m in first.items + second.items] == ["note 4", "note 3", "note 2", "note 1"]
    with pytest.raises(InvalidInput, match="different listing"):
        world.app.memories.list(who, "other", limit=2, cursor=first.next_cursor)
    with pytest.raises(InvalidInput, match="between 1 and"):
        world.app.memories.list(who, "acme", limit=0)


def test_bulk_add_skips_repeats_and_writes_the_rest(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Already known")
    result = world.app.memories.add_many(
        who, ["First", "Second", "first", "Already known", "Third"], batch_size=2)
    assert (result.created, result.duplicates) == (3, 2)
    space = world.app.store.directory.get_space_by_slug("acme")
    assert space is not None
    stored = world.app.store.reads.list_memories(MemoryFilter(space.id), 10)
    assert sorted(m.content for m in stored) == ["Already known", "First", "Second", "Third"]


def test_the_graph_of_a_space_has_its_memories_and_their_edges(world: World) -> None:
    who = world.principal({"acme": "rw"})
    old = world.app.memories.add(who, "Team size is four").memories[0]
    new = world.app.memories.correct(who, old.id, "Team size is five").memories[0]
    world.app.memories.add(who, "Unrelated note")
    graph = world.app.graphs.graph(who, limit=2)
    assert graph.truncated is True and len(graph.nodes) == 2
    full = world.app.graphs.graph(who)
    assert {n.id for n in full.nodes} >= {old.id, new.id}
    assert [(e.source_id, e.target_id, e.type.value) for e in full.edges] == [
        (new.id, old.id, "UPDATES")]


def test_bulk_add_embeds_the_next_batch_while_the_last_is_written(world: World) -> None:
    """One write in flight beside the embedding of the next batch; a repeat another writer saved
    meanwhile is counted as a duplicate."""
    who = world.principal({"acme": "rw"})
    store = world.app.store
    writing, release = threading.Event(), threading.Event()
    embedded_while_writing: list[bool] = []
    real_write, real_embed = store.writes.write, world.app.embedder.embed

    def slow_write(batch: WriteBatch) -> None:
        if batch.memories[0].content == "Alpha":
            writing.set()
            assert release.wait(10)
            world.app.memories.add(who, "Gamma")  # saved by someone else meanwhile
        real_write(batch)

    def watching_embed(texts: list[str]) -> list[list[float]]:
        if len(embedded_while_writing) == 1:  # the second batch: the first one's write must be
            # in flight now (bounded wait: the worker thread may not have reached it yet); a
            # write that waited for this embedding instead would never get there
            assert writing.wait(10), "the second batch was embedded before the first was written"
        embedded_while_writing.append(writing.is_set() and not release.is_set())
        if writing.is_set():
            release.set()
        return real_embed(texts)

    store.writes.write = slow_write  # type: ignore[method-assign]
    world.app.embedder.embed = watching_embed  # type: ignore[method-assign]
    try:
        result = world.app.memories.add_many(who, ["Alpha", "Beta", "Gamma", "Delta"],
                                             batch_size=2)
    finally:
        store.writes.write = real_write  # type: ignore[method-assign]
        world.app.embedder.embed = real_embed  # type: ignore[method-assign]
    assert embedded_while_writing[:2] == [False, True]  # batch 2 embedded during write 1
    assert (result.created, result.duplicates) == (3, 1)
    assert stored(world) == ["Alpha", "Beta", "Delta", "Gamma"]


def test_a_failed_bulk_write_ends_the_import_after_the_batches_written(world: World) -> None:
    who = world.principal({"acme": "rw"})
    store = world.app.store
    real_write = store.writes.write

    def failing_write(batch: WriteBatch) -> None:
        if batch.memories[0].content == "Gamma":
            raise Unavailable("the store went away")
        real_write(batch)

    store.writes.write = failing_write  # type: ignore[method-assign]
    try:
        with pytest.raises(Unavailable, match="went away"):
            world.app.memories.add_many(who, ["Alpha", "Beta", "Gamma", "Delta", "Eps"],
                                        batch_size=2)
    finally:
        store.writes.write = real_write  # type: ignore[method-assign]
    assert stored(world) == ["Alpha", "Beta"]  # never a batch past the failed one


def stored(world: World) -> list[str]:
    space = world.app.store.directory.get_space_by_slug("acme")
    assert space is not None
    return sorted(m.content for m in world.app.store.reads.list_memories(MemoryFilter(space.id), 10))
