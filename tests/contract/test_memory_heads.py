"""A hybrid search by heads (domain/heads.py) ranks what the whole one ranks, warm and cold, on
both stores, each head holding its memory's speaker, time, turn before and flag; the answer's
memories are then read by id, never across spaces."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from memspace.domain.graph_port import GraphStore
from memspace.domain.heads import HybridHeads, MemoryHead
from memspace.domain.models import HybridHits, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import cold_search

EMBED = HashEmbedder()
WORDS = ("deploy", "rollback", "invoice", "pricing", "latency", "budget", "schema", "refund")
QUERIES = ("deploy rollback latency", "refund the invoice", "schema budget")


def _conversation(store: GraphStore, n: int = 90) -> tuple[str, list[str]]:
    """A space of turns: two speakers, times in two offsets, each turn after the first
    following the one before, every seventh flagged, every tenth forgotten."""
    rng = random.Random(41)
    space = b.space(f"heads-{rng.randrange(10**9)}")
    store.directory.create_space(space)
    start = datetime(2023, 8, 14, 9, 30, tzinfo=timezone(timedelta(hours=-4)))
    turns = []
    for i in range(n):
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 8))) + f" turn {i}"
        turn = replace(b.memory(space.id, content, EMBED.embed([content])[0]),
                       speaker=("Ana Ruiz", "Bo")[i % 2],
                       observed_at=(start + timedelta(hours=7 * i)).astimezone(
                           UTC if i % 3 else start.tzinfo),
                       follows=turns[-1].id if turns else None,
                       suspicious="reads like an instruction" if i % 7 == 0 else None)
        turns.append(turn)
    store.writes.write(WriteBatch(space.id, turns))
    for turn in turns[::10]:
        store.writes.forget(space.id, turn.id, "test", "tester", datetime.now(UTC))
    return space.id, [t.id for t in turns]


def _same(heads: HybridHeads, hits: HybridHits) -> None:
    """The same lists and scores, each head as its whole memory says."""
    for by_head, by_whole in ((heads.by_vector, hits.by_vector), (heads.by_text, hits.by_text)):
        assert [(h.memory.id, round(h.score, 5)) for h in by_head] == [
            (h.memory.id, round(h.score, 5)) for h in by_whole]
        for head, whole in zip(by_head, by_whole, strict=True):
            memory = whole.memory
            assert (head.memory.speaker, head.memory.observed_at, head.memory.follows,
                    head.memory.suspicious) == (memory.speaker, memory.observed_at,
                                                memory.follows, memory.suspicious)
            assert head.memory.observed_at is not None
            assert head.memory.observed_at.utcoffset() == memory.observed_at.utcoffset()
            assert isinstance(head.memory, MemoryHead) or head.memory is memory or \
                head.memory == memory  # a store that read it whole hands the memory over
    assert {k: round(v, 5) for k, v in heads.cosines.items()} == {
        k: round(v, 5) for k, v in hits.cosines.items()}
    assert {k: round(v, 5) for k, v in heads.text_scores.items()} == {
        k: round(v, 5) for k, v in hits.text_scores.items()}


@pytest.mark.parametrize("where", [{}, {"category": "general"}, {"include_inactive": True}])
def test_heads_rank_what_whole_memories_rank_warm_and_cold(store: GraphStore,
                                                           where: dict[str, object]) -> None:
    space_id, ids = _conversation(store)
    flt = MemoryFilter(space_id, **where)  # type: ignore[arg-type]
    cold = cold_search(store)
    for text in QUERIES:
        [vector] = EMBED.embed_queries([text])
        for ranker in (store.search, cold):
            heads = ranker.hybrid_heads(flt, vector, text, 20)
            assert heads.by_vector and heads.by_text
            _same(heads, ranker.hybrid_search(flt, vector, text, 20))
            shown = {h.memory.id for h in heads.by_vector + heads.by_text}
            assert flt.include_inactive or shown.isdisjoint(ids[::10])


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_ranks_by_heads_what_it_ranks_whole(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from memspace.stores.neo4j import cold as neo4j_cold

    space_id, _ = _conversation(neo4j_store)
    assert neo4j_store.flush_vector_index(60.0)
    neo4j_store.kit.db.driver.execute_query("CALL db.awaitIndexes(300)")
    neo4j_store.kit.db.driver.execute_query(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)  # ranked by the store's own indexes
    cold = cold_search(neo4j_store)
    for text in QUERIES:
        [vector] = EMBED.embed_queries([text])
        heads = cold.hybrid_heads(MemoryFilter(space_id), vector, text, 10)
        assert heads.by_text and all(isinstance(h.memory, MemoryHead) for h in heads.by_text)
        _same(heads, cold.hybrid_search(MemoryFilter(space_id), vector, text, 10))


@pytest.mark.neo4j
def test_a_small_cold_space_on_neo4j_reads_heads_after_its_pass(neo4j_store: Neo4jStore) -> None:
    # the pass over the space's rows ranks; only heads are read for the candidates (cheaper
    # for the store and the client), and a search reads just its answer whole afterwards
    space_id, _ = _conversation(neo4j_store)
    cold = cold_search(neo4j_store)
    [vector] = EMBED.embed_queries([QUERIES[0]])
    heads = cold.hybrid_heads(MemoryFilter(space_id), vector, QUERIES[0], 10)
    assert heads.by_vector and all(isinstance(h.memory, MemoryHead)
                                   for h in [*heads.by_vector, *heads.by_text])


def test_memories_are_read_by_id_within_their_space_only(store: GraphStore) -> None:
    space_id, ids = _conversation(store, n=12)
    other_id, other_ids = _conversation(store, n=3)
    asked = [ids[0], ids[5], other_ids[1], "mem-that-never-was", ids[5]]
    found = store.reads.get_memories(space_id, asked)
    assert sorted(m.id for m in found) == sorted([ids[0], ids[5]])
    assert all(m.space_id == space_id for m in found)
    [forgotten] = [m for m in found if m.id == ids[0]]  # read as stored, inactive too
    assert not forgotten.active
    assert [m.id for m in store.reads.get_memories(other_id, asked)] == [other_ids[1]]
    assert store.reads.get_memories(space_id, []) == []
    [whole] = [m for m in found if m.id == ids[5]]
    assert whole == store.reads.get_memory(space_id, ids[5])
