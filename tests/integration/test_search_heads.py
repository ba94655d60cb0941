"""A hybrid search on Neo4j ranks its candidates by their heads and reads whole only the
memories it shows (domain/heads.py), and answers exactly as the search that reads every
candidate whole (a space that quarantines suspicious memories, where none is)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.models import Access
from memspace.services.access.access import Principal
from memspace.services.search.search import SearchRequest, SearchResult
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.neo4j import Neo4jStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore

pytestmark = pytest.mark.neo4j

TOPICS = ("the deploy pipeline", "the invoice run", "the pricing page", "the schema migration",
          "the on-call rota", "the refund queue")


@pytest.fixture
def app(neo4j_store: Neo4jStore) -> Iterator[Container]:
    made = build(Settings(_env_file=None), store=neo4j_store,  # type: ignore[call-arg]
                 embedder=HashEmbedder(), blobs=MemoryBlobStore())
    yield made
    made.search.close()


def _chat(app: Container) -> tuple[Principal, str]:
    slug = f"heads-{uuid.uuid4().hex[:10]}"
    app.admin.create_space(slug)
    who = app.access.authenticate(app.admin.create_key("agent", {slug: Access.READWRITE}).raw)
    start = datetime(2023, 8, 1, 9, 0, tzinfo=UTC)
    for i in range(48):
        topic = TOPICS[i % len(TOPICS)]
        app.memories.add(who, f"turn {i}: we talked about {topic} and what to do next",
                         space=slug, speaker=("Ana Ruiz", "Bo")[i % 2],
                         observed_at=start + timedelta(days=i))
    # a first search answers cold and loads the space in the background: held from then on
    first = app.search.search(who, SearchRequest(query="warm it", space=slug))
    cache = app.search._cache
    assert first.path == "cold" and cache is not None and cache.idle(60.0)
    assert cache.holds(app.access.resolve(who, slug).space.id)
    return who, slug


def _shown(found: SearchResult) -> list[tuple[object, ...]]:
    return [(h.memory, round(h.score, 6), h.matched_by,
             tuple((n.memory.id, n.hops) for n in h.related)) for h in found.hits]


def test_a_search_reads_whole_only_what_it_shows_and_answers_as_a_whole_read_does(
        app: Container, neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    who, slug = _chat(app)
    asked: list[list[str]] = []
    real, one = neo4j_store.reads.get_memories, neo4j_store.reads.answer_reads

    def spy(space_id: str, ids: list[str]) -> object:
        asked.append(list(ids))
        return real(space_id, ids)

    def spy_one(space_id: str, ids: list[str], *args: object) -> object:
        asked.append(list(ids))  # the answer read whole with its neighbourhoods and heads
        return one(space_id, ids, *args)  # type: ignore[arg-type]

    def spied() -> None:
        monkeypatch.setattr(neo4j_store.reads, "get_memories", spy)
        monkeypatch.setattr(neo4j_store.reads, "answer_reads", spy_one)

    spied()
    for query, limit in (("what did Ana Ruiz say about the pricing page?", 5),
                         ("the schema migration in August 2023", 3),
                         ("deploy pipeline", 10)):
        request = SearchRequest(query=query, space=slug, limit=limit, include_profile=False)
        asked.clear()
        lean = app.search.search(who, request)
        assert lean.path == "warm"
        assert [len(ids) for ids in asked] == [limit]  # one read, of the answer alone
        assert [h.memory.id for h in lean.hits] == asked[0]
        assert all(h.memory.content.startswith("turn ") and h.memory.created_by
                   for h in lean.hits)
        monkeypatch.setattr(app.search, "_quarantines", lambda _space_id: True)
        asked.clear()
        whole = app.search.search(who, request)  # every candidate read whole
        monkeypatch.undo()
        spied()
        assert asked == []
        assert _shown(lean) == _shown(whole)
    # the heads carry what the lifts read: the speaker a query names, the period it names
    named = app.search.search(who, SearchRequest(
        query="what did Ana Ruiz say about the pricing page?", space=slug, limit=5))
    assert any("speaker" in h.matched_by and h.memory.speaker == "Ana Ruiz" for h in named.hits)
    dated = app.search.search(who, SearchRequest(
        query="the schema migration in August 2023", space=slug, limit=5))
    assert any("time" in h.matched_by and h.memory.observed_at is not None
               and h.memory.observed_at.month == 8 for h in dated.hits)


def test_a_memory_forgotten_after_the_ranking_is_not_shown(
        app: Container, neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    who, slug = _chat(app)
    request = SearchRequest(query="the refund queue", space=slug, limit=5, include_profile=False)
    first = app.search.search(who, request).hits[0].memory
    real = neo4j_store.reads.answer_reads

    def forgotten_meanwhile(space_id: str, ids: list[str], *args: object) -> object:
        app.memories.forget(who, first.id, reason="wrong", space=slug)
        return real(space_id, ids, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(neo4j_store.reads, "answer_reads", forgotten_meanwhile)
    shown = [h.memory.id for h in app.search.search(who, request).hits]
    assert first.id not in shown and len(shown) == 4
