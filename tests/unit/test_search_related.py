"""A lean search's neighbourhoods are read beside the read of its hits, where the store allows
it, and the answer is the same either way."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from memspace.domain.heads import HybridHeads, MemoryHead, ScoredHead
from memspace.domain.models import Memory, ScoredMemory
from memspace.domain.ports import AnswerReads
from memspace.services.search.search import SearchRequest
from tests.unit.conftest import World


def _head(hit: ScoredMemory | ScoredHead) -> ScoredHead:
    m = hit.memory
    if not isinstance(m, Memory):
        return ScoredHead(m, hit.score)
    return ScoredHead(MemoryHead(m.id, m.speaker, m.observed_at, m.follows, m.suspicious),
                      hit.score)


def _as_heads(monkeypatch: pytest.MonkeyPatch, world: World) -> None:
    """The store hands over heads, as a store across a wire does (SQLite's are whole)."""
    search = world.app.store.search
    real = search.hybrid_heads

    def heads(*args: Any, **kwargs: Any) -> HybridHeads:
        hits = real(*args, **kwargs)
        return HybridHeads([_head(h) for h in hits.by_vector], [_head(h) for h in hits.by_text],
                           hits.cosines, hits.text_scores)

    monkeypatch.setattr(search, "hybrid_heads", heads)


def _chain(world: World) -> Any:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Team size is four").memories[0]
    second = world.app.memories.correct(who, first.id, "Team size is five").memories[0]
    world.app.memories.correct(who, second.id, "Team size is six")
    world.app.memories.add(who, "The cafeteria opens at eight")
    return who


def _answer(found: Any) -> list[Any]:
    return [(h.memory.id, [(r.memory.id, r.hops) for r in h.related]) for h in found.hits]


@pytest.mark.parametrize("concurrent", [True, False])
def test_the_neighbours_are_read_beside_the_hits_only_where_the_store_allows(
    world: World, monkeypatch: pytest.MonkeyPatch, concurrent: bool,
) -> None:
    who = _chain(world)
    request = SearchRequest(query="team size", include_profile=False)
    expected = _answer(world.app.search.search(who, request))
    assert expected[0][1]  # the hit has neighbours to read
    _as_heads(monkeypatch, world)
    monkeypatch.setattr(world.app.store.search, "concurrent_reads", concurrent)
    store = world.app.store
    started = threading.Event()
    seen: dict[str, Any] = {}
    get_memories, neighbours = store.reads.get_memories, store.relations.neighbours

    def whole(*args: Any, **kwargs: Any) -> Any:
        # beside: the neighbours' read has started before this one ends (a generous wait on a
        # loaded machine; in sequence it never starts, so nothing to wait for)
        seen["overlapped"] = started.wait(30) if concurrent else started.is_set()
        return get_memories(*args, **kwargs)

    def related(*args: Any, **kwargs: Any) -> Any:
        started.set()
        seen["thread"] = threading.current_thread().name
        return neighbours(*args, **kwargs)

    monkeypatch.setattr(store.reads, "get_memories", whole)
    monkeypatch.setattr(store.relations, "neighbours", related)
    found = world.app.search.search(who, request)
    assert _answer(found) == expected
    assert seen["overlapped"] == concurrent
    assert seen["thread"].startswith("memspace-early-read") == concurrent


def test_a_hit_left_out_after_its_head_was_read_gets_the_neighbourhoods_read_again(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = _chain(world)
    request = SearchRequest(query="team size", include_profile=False)
    _as_heads(monkeypatch, world)
    monkeypatch.setattr(world.app.store.search, "concurrent_reads", True)
    store = world.app.store
    get_memories, neighbours = store.reads.get_memories, store.relations.neighbours
    asked: list[list[str]] = []
    both = threading.Event()  # the early read runs on a pool thread the answer does not wait for

    def all_but_the_first(space_id: str, ids: list[str]) -> list[Memory]:
        return get_memories(space_id, ids[1:])  # deactivated since the ranking read its head

    def related(space_id: str, ids: Any, **kwargs: Any) -> Any:
        asked.append(list(ids))
        if len(asked) == 2:
            both.set()
        return neighbours(space_id, ids, **kwargs)

    monkeypatch.setattr(store.reads, "get_memories", all_but_the_first)
    monkeypatch.setattr(store.relations, "neighbours", related)
    found = world.app.search.search(who, request)
    shown = [h.memory.id for h in found.hits]
    assert both.wait(timeout=60), asked
    early, again = sorted(asked, key=len, reverse=True)  # the ranking's hits, then those shown
    assert early[1:] == shown and again == shown
    for hit in found.hits:  # neighbourhoods of the hits shown, none of the one left out
        assert all(r.origin_id == hit.memory.id for r in hit.related)


def _one_read(monkeypatch: pytest.MonkeyPatch, world: World,
              neighbours_heads: bool = True) -> dict[str, int]:
    """The store answers the hits, their neighbourhoods and their heads' ids in one read (as
    Neo4j does), composed here from its three reads; every read is counted. Without
    `neighbours_heads` the one read covers the hits' heads alone."""
    store = world.app.store
    reads, relations = store.reads, store.relations
    calls = {"one": 0, "memories": 0, "neighbours": 0, "prefixes": 0}
    real = {"memories": reads.get_memories, "neighbours": relations.neighbours,
            "prefixes": reads.ids_with_prefix}

    def counted(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real[name](*args, **kwargs)
        return call

    def one(space_id: str, ids: Any, hops: int, per_origin: int, head_chars: int,
            prefix_limit: int) -> AnswerReads:
        calls["one"] += 1
        near = real["neighbours"](space_id, ids, hops=hops, per_origin=per_origin)
        named = list(ids) + ([n.memory.id for n in near] if neighbours_heads else [])
        heads = frozenset(i[:head_chars] for i in named if len(i) > head_chars)
        return AnswerReads(real["memories"](space_id, ids), near, heads,
                           real["prefixes"](space_id, sorted(heads), prefix_limit))

    monkeypatch.setattr(reads, "answer_reads", one)
    monkeypatch.setattr(reads, "get_memories", counted("memories"))
    monkeypatch.setattr(relations, "neighbours", counted("neighbours"))
    monkeypatch.setattr(reads, "ids_with_prefix", counted("prefixes"))
    return calls


@pytest.mark.parametrize(("query", "neighbours_heads", "prefix_reads"), [
    ("team size", True, 0),  # every id the answer names was covered by the one read
    ("team size", False, 1),  # the neighbours' ids were not: read for the short ids alone
])
def test_a_store_that_reads_the_answer_at_once_is_asked_once(
    world: World, monkeypatch: pytest.MonkeyPatch, query: str, neighbours_heads: bool,
    prefix_reads: int,
) -> None:
    who = _chain(world)
    request = SearchRequest(query=query, include_profile=False)
    expected = world.app.search.search(who, request)
    assert any(h.related for h in expected.hits)  # ids shown that are not hits
    _as_heads(monkeypatch, world)
    calls = _one_read(monkeypatch, world, neighbours_heads)
    found = world.app.search.search(who, request)
    assert _answer(found) == _answer(expected) and found.short == expected.short
    assert calls == {"one": 1, "memories": 0, "neighbours": 0, "prefixes": prefix_reads}
