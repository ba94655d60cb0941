"""The cold path (a space this process does not hold) answers as the warm one does: the same
memories, the same scores, the same filters, on both stores (docs/scaling.md)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import cold_search

EMBED = HashEmbedder()
WORDS = ("deploy", "rollback", "invoice", "pricing", "cdn", "latency", "budget", "migration",
         "schema", "alert", "oncall", "release", "customer", "refund", "cache", "replica")


def _load(store: GraphStore, n: int = 120) -> tuple[str, list[str]]:
    rng = random.Random(39)
    space = b.space(f"cold-{rng.randrange(10**9)}")
    store.directory.create_space(space)
    memories = []
    for i in range(n):
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 9))) + f" note {i}"
        memory = b.memory(space.id, content, EMBED.embed([content])[0])
        memories.append(memory.__class__(**{**memory.__dict__,
                                            "category": "ops" if i % 3 == 0 else "sales"}))
    store.writes.write(WriteBatch(space.id, memories))
    for memory in memories[::10]:
        store.writes.forget(space.id, memory.id, "test", "tester", datetime.now(UTC))
    return space.id, [m.id for m in memories]


def _pairs(hits: list[ScoredMemory]) -> list[tuple[str, float]]:
    return [(h.memory.id, round(h.score, 4)) for h in hits]


def _same_ranking(cold: list[ScoredMemory], warm: list[ScoredMemory],
                  may_be_empty: bool = False) -> None:
    """The same scores in the same order, and the same memories above the last score (the
    cache picks among memories tied at the cut in no particular order). A query is built to
    find memories unless the caller says otherwise (and then counts the answers that did): two
    empty answers would agree about nothing."""
    assert warm or may_be_empty, "the warm search found nothing, so the cold one is compared with nothing"
    assert [round(h.score, 4) for h in cold] == [round(h.score, 4) for h in warm]
    if not warm:
        return
    cut = round(warm[-1].score, 4)
    assert {m for m, s in _pairs(cold) if s > cut} == {m for m, s in _pairs(warm) if s > cut}


@pytest.mark.parametrize("where", [{}, {"category": "ops"}, {"include_inactive": True}])
def test_cold_hybrid_search_ranks_what_the_warm_one_ranks(store: GraphStore,
                                                          where: dict[str, object]) -> None:
    space_id, _ = _load(store)
    cold = cold_search(store)
    flt = MemoryFilter(space_id, **where)  # type: ignore[arg-type]
    for text in ("deploy rollback latency", "refund the customer invoice", "cache replica"):
        [vector] = EMBED.embed_queries([text])
        warm_hits = store.search.hybrid_search(flt, vector, text, 20)
        cold_hits = cold.hybrid_search(flt, vector, text, 20)
        _same_ranking(cold_hits.by_text, warm_hits.by_text)
        _same_ranking(cold_hits.by_vector, warm_hits.by_vector)
        for hit in cold_hits.by_text + cold_hits.by_vector:
            assert hit.memory.active or flt.include_inactive
            assert flt.category in (None, hit.memory.category)


def test_cold_keyword_and_text_search_find_the_warm_memories(store: GraphStore) -> None:
    space_id, ids = _load(store)
    cold = cold_search(store)
    flt = MemoryFilter(space_id)
    _same_ranking(cold.keyword_search(flt, "invoise refund", 50),
                  store.search.keyword_search(flt, "invoise refund", 50))
    _same_ranking(cold.text_search(flt, "pricing schema", 30),
                  store.search.text_search(flt, "pricing schema", 30))
    forgotten = set(ids[::10])
    assert not forgotten & {h.memory.id for h in cold.keyword_search(flt, "note", 200)}


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_is_ranked_by_its_vector_and_full_text_indexes(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from memspace.stores.neo4j import cold as neo4j_cold

    store = neo4j_store  # Neo4j's own indexes: this store only
    space_id, ids = _load(store)
    assert store.flush_vector_index(60.0)
    store.kit.db.driver.execute_query("CALL db.awaitIndexes(300)")
    store.kit.db.driver.execute_query(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)  # every space counts as large
    monkeypatch.setattr(neo4j_cold, "EXACT_PER_K", 0)  # and asks the vector index
    cold = cold_search(store)
    flt = MemoryFilter(space_id, category="ops")
    text = "refund customer invoice"
    [vector] = EMBED.embed_queries([text])
    warm_hits = store.search.hybrid_search(flt, vector, text, 10)
    cold_hits = cold.hybrid_search(flt, vector, text, 10)
    # The vector index is approximate and ranks the whole database (k sized by the space's
    # share of it, stores/neo4j/cold.py), which other tests fill: what it finds is the exact
    # ranking's head, re-ranked by the exact cosine, and its tail may fall short (a CI run once
    # missed the 10th, at cosine 0.26).
    found = cold_hits.by_vector
    assert len(found) >= len(warm_hits.by_vector) - 2
    _same_ranking(found, warm_hits.by_vector[:len(found)])
    # Lucene picks the text candidates (its statistics span the database); they are scored
    # with the space's own statistics, so the text ranking is the warm one, score for score
    _same_ranking(cold_hits.by_text, warm_hits.by_text)
    every_cold = cold.hybrid_search(flt, vector, text, 50).by_text
    every_warm = store.search.hybrid_search(flt, vector, text, 50).by_text
    assert len(every_warm) < 50
    _same_ranking(every_cold, every_warm)
    # every memory of either list carries the warm text score, the vector hits too
    for memory_id, score in cold_hits.text_scores.items():
        assert round(score, 4) == round(warm_hits.text_scores.get(memory_id, score), 4)
    assert set(cold_hits.text_scores) >= {h.memory.id for h in cold_hits.by_vector}
    for hit in cold_hits.by_text + cold_hits.by_vector:
        assert hit.memory.active and hit.memory.category == "ops"
        assert 0.0 <= cold_hits.cosines.get(hit.memory.id, 0.0) <= 1.0
    assert set(ids[::10]).isdisjoint(h.memory.id for h in cold_hits.by_text)


@pytest.mark.neo4j
def test_a_mid_sized_cold_space_on_neo4j_is_scanned_exactly_inside_neo4j(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the vector index would have to be asked for more nodes than the space holds (a
    small share of a large store), the space's vectors are scored inside Neo4j: exact, the
    warm ranking, and no vector index query."""
    from memspace.stores.neo4j import cold as neo4j_cold

    store = neo4j_store
    space_id, _ = _load(store)
    store.kit.db.driver.execute_query(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    monkeypatch.setattr(neo4j_cold, "EXACT_PER_K", 10**6)  # every space: the scan is cheaper
    asked: list[str] = []
    read = store.kit.db.read

    def recorded(query: str, **params: object) -> object:
        asked.append(query)
        return read(query, **params)

    monkeypatch.setattr(store.kit.db, "read", recorded)
    cold = cold_search(store)
    for where in ({}, {"category": "ops"}, {"include_inactive": True}):
        flt = MemoryFilter(space_id, **where)  # type: ignore[arg-type]
        for text in ("deploy rollback latency", "refund the customer invoice"):
            [vector] = EMBED.embed_queries([text])
            warm_hits = store.search.hybrid_search(flt, vector, text, 10)
            cold_hits = cold.hybrid_search(flt, vector, text, 10)
            _same_ranking(cold_hits.by_vector, warm_hits.by_vector)
            _same_ranking(cold_hits.by_text, warm_hits.by_text)
    assert asked and not any("db.index.vector.queryNodes" in q for q in asked)


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_estimates_common_terms_from_a_sample(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query term too common for Lucene to count (DF_CAP) takes its frequency from evenly
    spaced memories of the space; when the sample is the whole space the estimate is exact,
    and the ranking is the warm one."""
    from memspace.stores.neo4j import cold as neo4j_cold
    from memspace.stores.neo4j import cold_stats

    store = neo4j_store
    space_id, _ = _load(store)
    store.kit.db.driver.execute_query(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    monkeypatch.setattr(cold_stats, "DF_CAP", 3)  # every query term is "too common"
    flt = MemoryFilter(space_id)
    text = "deploy the cache replica"
    _same_ranking(cold_search(store).text_search(flt, text, 30),
                  store.search.text_search(flt, text, 30))
    # a sample of a quarter of the space: near the warm ranking, not exact
    monkeypatch.setattr(cold_stats, "SAMPLE_ROWS", 30)
    sampled = cold_search(store).text_search(flt, text, 30)
    warm = store.search.text_search(flt, text, 30)
    assert len(sampled) == len(warm)
    assert len({h.memory.id for h in sampled[:10]} & {h.memory.id for h in warm[:10]}) >= 7


def _sample_reads(store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The sequence numbers of each sample the cold path reads from the store, from now on."""
    from memspace.stores.neo4j.cypher import cold as cold_cypher

    sampled: list[object] = []
    read = store.kit.db.read

    def recorded(query: str, **params: object) -> object:
        if query == cold_cypher.TERMS_SAMPLE:
            sampled.append(params["seqs"])
        return read(query, **params)

    monkeypatch.setattr(store.kit.db, "read", recorded)
    return sampled


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_is_sampled_again_only_once_it_changed(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A space's sample (its average length, the counts of its common terms) is kept while
    the space's last sequence number stands (any write moves it), so searches of an unchanged
    space read no sample, whatever their terms; a sample of the whole space is read again after
    any write, and the ranking is still the warm one."""
    from memspace.stores.neo4j import cold as neo4j_cold
    from memspace.stores.neo4j import cold_stats

    store = neo4j_store
    space_id, _ = _load(store)
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    sampled = _sample_reads(store, monkeypatch)
    cold = cold_search(store)
    flt = MemoryFilter(space_id)

    def same_as_warm(text: str) -> None:
        store.kit.db.driver.execute_query(
            "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
        _same_ranking(cold.text_search(flt, text, 30), store.search.text_search(flt, text, 30))

    same_as_warm("deploy the cache replica")
    same_as_warm("refund the customer invoice")
    assert len(sampled) == 1
    store.writes.write(WriteBatch(space_id, [b.memory(space_id, "cache replica deploy note",
                                                      EMBED.embed(["cache replica"])[0])]))
    same_as_warm("deploy the cache replica")
    assert len(sampled) == 2
    # Every query term "too common" for Lucene to count: a sample kept with a floor meant for
    # the old cap cannot answer (a term it dropped could pass the new one): read once more,
    # and kept from then on.
    monkeypatch.setattr(cold_stats, "DF_CAP", 3)
    same_as_warm("deploy the cache replica")
    same_as_warm("refund the customer invoice")
    assert len(sampled) == 3


@pytest.mark.neo4j
def test_a_partial_sample_of_a_large_cold_space_stands_while_the_space_grows_a_little(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample of part of a space is an estimate already: it is read again only once the
    space grew by more than 1/SAMPLE_GROWTH since (each write would otherwise cost a read of
    SAMPLE_ROWS memories), and a common term's estimate follows the space's size."""
    from memspace.stores.neo4j import cold as neo4j_cold
    from memspace.stores.neo4j import cold_stats

    store = neo4j_store
    space_id, _ = _load(store)
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    monkeypatch.setattr(cold_stats, "SAMPLE_ROWS", 30)
    monkeypatch.setattr(cold_stats, "SAMPLE_GROWTH", 8)
    monkeypatch.setattr(cold_stats, "DF_CAP", 3)
    sampled = _sample_reads(store, monkeypatch)
    cold = cold_search(store)
    flt = MemoryFilter(space_id)
    size = cold._size(space_id)
    cold.text_search(flt, "deploy the cache replica", 30)
    first = cold.statistics.of(space_id, ["deploy"], size)
    assert len(sampled) == 1 and first.df["deploy"] >= 3

    added = iter(range(10**6))

    def add(n: int) -> None:
        store.writes.write(WriteBatch(space_id, [
            b.memory(space_id, f"deploy note {next(added)}", EMBED.embed(["deploy note"])[0])
            for _ in range(n)]))

    add(size // 8)  # grown by exactly 1/8: the sample stands
    grown = cold._size(space_id)
    assert cold.statistics.of(space_id, ["deploy"], grown).df["deploy"] >= first.df["deploy"]
    cold.text_search(flt, "deploy the cache replica", 30)
    assert len(sampled) == 1
    add(1)  # past 1/8: read again
    cold.text_search(flt, "deploy the cache replica", 30)
    assert len(sampled) == 2


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_finds_keywords_through_lucene_without_a_pass(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    from memspace.stores.neo4j import cold as neo4j_cold

    store = neo4j_store
    space_id, ids = _load(store)
    store.kit.db.driver.execute_query(
        "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    cold = cold_search(store)

    def no_pass(*_: object) -> None:
        raise AssertionError("a large space's keyword search read the space whole")

    for where in (MemoryFilter(space_id), MemoryFilter(space_id, category="ops"),
                  MemoryFilter(space_id, include_inactive=True)):
        for keyword, exact in (("invoise refund", False), ("invoice refund", True),
                               ("latncy", False), ("latncy", True)):
            warm = store.search.keyword_search(where, keyword, 200, exact)
            with monkeypatch.context() as patched:
                patched.setattr(cold, "_rows", no_pass)  # the pass over the space's rows
                found = cold.keyword_search(where, keyword, 200, exact)
            # the same memories (all of them: 200 is more than the space holds); scored by the
            # candidates' own statistics, so in an order of their own
            assert {h.memory.id for h in found} == {h.memory.id for h in warm}, (keyword, where)
            assert bool(found) == (keyword != "latncy" or not exact)
            for hit in found:
                assert hit.score > 0.0
                assert hit.memory.active or where.include_inactive
                assert where.category in (None, hit.memory.category)
    top = cold.keyword_search(MemoryFilter(space_id), "invoise refund", 3)
    assert len(top) == 3 and set(ids[::10]).isdisjoint(h.memory.id for h in top)
    # A word Lucene's analyzer could split is searched by the pass over the rows, as before.
    monkeypatch.setattr(cold, "_rows", no_pass)
    with pytest.raises(AssertionError, match="read the space whole"):
        cold.keyword_search(MemoryFilter(space_id), "refund_invoice", 5)


@pytest.mark.neo4j
def test_a_large_cold_space_on_neo4j_gets_a_vector_index_of_its_own(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold search that finds a space past OWN_INDEX_MIN has a vector index of its own built
    in the background: the memories already there are labelled (in several transactions),
    later ones too, whether the feed indexes them or a bulk write does, and from then on the
    cold search asks that index alone (the warm ranking), never the store-wide one."""
    from memspace.stores.neo4j import cold as neo4j_cold
    from memspace.stores.neo4j import space_vectors
    from memspace.stores.neo4j.memories import INDEX_IN_THE_WRITE
    from memspace.stores.neo4j.schema import VECTOR_INDEX

    store = neo4j_store
    space_id, _ = _load(store)
    named = space_vectors.names(space_id)
    assert named is not None
    index, label = named
    monkeypatch.setattr(neo4j_cold, "SCAN_MAX", 0)
    monkeypatch.setattr(neo4j_cold, "OWN_INDEX_MIN", 100)
    monkeypatch.setattr(space_vectors, "LABEL_ROWS", 7)
    asked: list[object] = []
    read = store.kit.db.read

    def recorded(query: str, **params: object) -> object:
        if "db.index.vector.queryNodes" in query:
            asked.append(params["index"])
        return read(query, **params)

    monkeypatch.setattr(store.kit.db, "read", recorded)
    cold = cold_search(store)

    def labelled() -> int:
        [row] = read(f"MATCH (m:`{label}`) RETURN count(m) AS n, "
                     "count(DISTINCT m.spaceId) AS spaces")
        assert row["spaces"] <= 1
        return int(row["n"])

    try:
        text = "deploy rollback latency"
        [vector] = EMBED.embed_queries([text])
        cold.hybrid_search(MemoryFilter(space_id), vector, text, 10)  # asks for the build
        assert cold.indexes.settled(300.0)
        assert cold.indexes.ready(space_id) and labelled() == 120
        assert index not in asked  # the first search, before the index was ready

        later = [b.memory(space_id, f"pager rotation change {n}", EMBED.embed([f"pager {n}"])[0])
                 for n in range(2)]
        store.writes.write(WriteBatch(space_id, later))  # indexed by the feed
        bulk = [b.memory(space_id, f"imported runbook step {n}",
                         EMBED.embed([f"imported runbook step {n}"])[0])
                for n in range(INDEX_IN_THE_WRITE)]
        store.writes.write(WriteBatch(space_id, bulk))  # indexed by the write itself
        assert store.flush_vector_index(60.0)
        assert labelled() == 120 + 2 + INDEX_IN_THE_WRITE
        store.kit.db.driver.execute_query(
            "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")

        asked.clear()
        found = 0
        for probe in ("pager 1", "imported runbook step 5", text):
            [vector] = EMBED.embed_queries([probe])
            for where in ({}, {"category": "ops"}):
                flt = MemoryFilter(space_id, **where)  # type: ignore[arg-type]
                warm_hits = store.search.hybrid_search(flt, vector, probe, 10)
                cold_hits = cold.hybrid_search(flt, vector, probe, 10)
                # A probe's words need not be in an "ops" memory: its text half may be empty.
                _same_ranking(cold_hits.by_vector, warm_hits.by_vector)
                _same_ranking(cold_hits.by_text, warm_hits.by_text, may_be_empty=bool(where))
                found += bool(warm_hits.by_text)
        assert found >= 3  # every probe's words are found without the category filter
        assert asked and set(asked) == {index} and VECTOR_INDEX not in asked
    finally:
        cold.close()
        store.kit.db.driver.execute_query(f"DROP INDEX `{index}` IF EXISTS")


def test_a_space_id_that_cannot_name_a_label_gets_no_index_of_its_own() -> None:
    from memspace.stores.neo4j.space_vectors import names

    assert names("0f3a9c2e4b5d6a7f8e9d0c1b2a3f4e5d") == (
        "space_vectors_0f3a9c2e4b5d6a7f8e9d0c1b2a3f4e5d",
        "SpaceVectors_0f3a9c2e4b5d6a7f8e9d0c1b2a3f4e5d")
    assert names("team-a") == ("space_vectors_team_a", "SpaceVectors_team_a")
    for unsafe in ("a`b", "x) DETACH DELETE (y", "", "é", "a" * 65):
        assert names(unsafe) is None
