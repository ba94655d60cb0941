from __future__ import annotations

import threading
from typing import Any

import pytest

from memspace.domain.errors import InvalidInput, Unavailable
from memspace.services.search import search as search_module
from memspace.services.search.search import SearchRequest
from tests.unit.conftest import World


def test_search_needs_something_to_search_for(world: World) -> None:
    who = world.principal({"acme": "r"})
    with pytest.raises(InvalidInput, match="at least one of"):
        world.app.search.search(who, SearchRequest(query="   "))


def test_hybrid_search_finds_by_meaning_and_words(world: World) -> None:
    who = world.principal({"acme": "rw"})
    for text in ["Deploys need two approvals", "The cafeteria opens at eight",
                 "Rollbacks need one approval"]:
        world.app.memories.add(who, text)
    found = world.app.search.search(who, SearchRequest(query="how many approvals do deploys need"))
    assert found.mode == "hybrid"
    assert found.hits[0].memory.content == "Deploys need two approvals"
    # saved in a row by one writer, the three are linked: the others lift it a little too
    assert set(found.hits[0].matched_by) == {"vector", "text", "neighbour"}
    assert found.profile is not None and found.profile.stats.active_memories == 3


@pytest.mark.parametrize("concurrent", [True, False])
def test_the_profile_is_read_beside_the_ranking_only_where_the_store_allows(
    world: World, monkeypatch: pytest.MonkeyPatch, concurrent: bool,
) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Deploys need two approvals")
    monkeypatch.setattr(world.app.store.search, "concurrent_reads", concurrent)
    threads: list[str] = []
    profile = world.app.profiles.profile

    def recorded(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return profile(*args, **kwargs)

    monkeypatch.setattr(world.app.profiles, "profile", recorded)
    found = world.app.search.search(who, SearchRequest(query="approvals for deploys"))
    assert found.profile is not None and found.profile.stats.active_memories == 1
    [thread] = threads
    assert thread.startswith("memspace-early-read") == concurrent
    assert world.app.search.search(
        who, SearchRequest(query="approvals", include_profile=False)).profile is None
    assert len(threads) == 1  # no profile asked, none read


def test_a_profile_that_cannot_be_read_fails_the_search_with_its_reason(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Deploys need two approvals")
    monkeypatch.setattr(world.app.store.search, "concurrent_reads", True)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise Unavailable("Neo4j at bolt://x is not answering")

    monkeypatch.setattr(world.app.profiles, "profile", down)
    with pytest.raises(Unavailable, match="not answering"):
        world.app.search.search(who, SearchRequest(query="approvals for deploys"))


def test_category_alone_lists_the_newest_of_it(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Use black", category="style")
    world.app.memories.add(who, "Lunch at noon", category="office")
    world.app.memories.add(who, "Use ruff", category="Style")
    found = world.app.search.search(who, SearchRequest(category="style", include_profile=False))
    assert found.mode == "category" and found.profile is None
    assert [h.memory.content for h in found.hits] == ["Use ruff", "Use black"]


def test_keyword_with_query_keeps_only_keyword_matches(world: World) -> None:
    who = world.principal({"acme": "rw"})
    world.app.memories.add(who, "Staging database is Postgres")
    world.app.memories.add(who, "Production database is Postgres")
    found = world.app.search.search(who, SearchRequest(query="database", keyword="prodution"))
    assert found.mode == "hybrid+keyword"
    assert [h.memory.content for h in found.hits] == ["Production database is Postgres"]


def test_every_hit_carries_its_two_hop_neighbourhood(world: World) -> None:
    who = world.principal({"acme": "rw"})
    first = world.app.memories.add(who, "Team size is four").memories[0]
    second = world.app.memories.correct(who, first.id, "Team size is five").memories[0]
    third = world.app.memories.correct(who, second.id, "Team size is six").memories[0]
    found = world.app.search.search(who, SearchRequest(query="team size"))
    [hit] = found.hits
    assert hit.memory.id == third.id
    assert [(r.memory.id, r.hops, r.memory.active) for r in hit.related] == [
        (second.id, 1, False), (first.id, 2, False)]


def test_oversized_queries_are_refused(world: World) -> None:
    who = world.principal({"acme": "r"})
    with pytest.raises(InvalidInput, match="MEMSPACE_MAX_QUERY_CHARS"):
        world.app.search.search(who, SearchRequest(query="q" * 5000))


def test_warm_up_loads_every_space_and_makes_one_searchs_reads_once(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    who = world.principal({"acme": "rw", "other": "rw"})
    world.app.admin.create_space("empty")
    world.app.memories.add(who, "Deploys need two approvals", space="acme")
    world.app.memories.add(who, "Rollbacks need one approval", space="other")
    store = world.app.store
    calls: list[str] = []
    for role, name in (("search", "vector_search"), ("search", "hybrid_search"),
                       ("search", "hybrid_heads"), ("reads", "get_memories"),
                       ("search", "keyword_search"), ("relations", "neighbours"),
                       ("relations", "open_conflicts")):
        real = getattr(getattr(store, role), name)

        def spy(*args: object, _real: object = real, _name: str = name, **kwargs: object) -> object:
            calls.append(_name)
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(getattr(store, role), name, spy)
    world.app.search.warm_up()
    assert calls.count("vector_search") == len(store.directory.list_spaces())  # every space's cache
    # the reads of a search (ranking whole and by heads, the answer's memories, neighbours,
    # keyword, profile) once, not per space (SQLite's heads are its hybrid_search's)
    rest = [c for c in calls if c != "vector_search"]
    assert list(dict.fromkeys(rest)) == [
        "hybrid_search", "hybrid_heads", "get_memories", "neighbours", "keyword_search",
        "open_conflicts"]
    assert all(rest.count(c) == 1 for c in rest if c != "hybrid_search")


@pytest.mark.parametrize("deepest", [None, 4])
def test_a_filtered_search_reads_deeper_until_its_page_fills_or_the_lists_end(
    world: World, monkeypatch: pytest.MonkeyPatch, deepest: int | None,
) -> None:
    """One disputed memory among 250 that the query ranks above it: the filtered search reads
    each list four times deeper (200 at limit 10), then 16 times (800), where the lists end
    short of what was asked; a page never reads past DEEPEST times the usual depth."""
    who = world.principal({"acme": "rw"})
    for n in range(250):
        world.app.memories.add(who, f"Deploy checklist step {n}: approvals before the release")
    doubted = world.app.memories.add(who, "The cafeteria opens at eight").memories[0]
    world.app.lifecycle.mark(who, doubted.id, "disputed", "nobody checked")
    if deepest is not None:
        monkeypatch.setattr(search_module, "DEEPEST", deepest)
    depths: list[int] = []
    rank = world.app.store.search.hybrid_search

    def recorded(where: Any, embedding: Any, text: str, limit: int) -> Any:
        depths.append(limit)
        return rank(where, embedding, text, limit)

    monkeypatch.setattr(world.app.store.search, "hybrid_search", recorded)
    found = world.app.search.search(who, SearchRequest(
        query="deploy checklist approvals", statuses=("disputed",), include_profile=False))
    if deepest is None:
        assert depths == [200, 800]
        assert [h.memory.id for h in found.hits] == [doubted.id]
    else:
        assert depths == [200]
        assert found.hits == ()
