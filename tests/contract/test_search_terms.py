"""Both stores index the same terms (domain.text.index_terms) and rank a fixed corpus alike."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

EMBED = HashEmbedder()

# A small conversation; the expected order was read off the ranking rule (BM25 over stems,
# context terms included), and both stores must give exactly it.
CORPUS = [
    ("Caroline: I researched adoption agencies last week.", None),
    ("Melanie: What made you choose them?", "Caroline: I researched adoption agencies last week."),
    ("Caroline: They support LGBTQ parents, that matters to me.", "Melanie: What made you choose them?"),
    ("Melanie: I painted a sunrise at the lake.", None),
    ("Caroline: The painting is lovely!", "Melanie: I painted a sunrise at the lake."),
]


def _load(store: GraphStore) -> tuple[str, list[str]]:
    space = b.space()
    store.directory.create_space(space)
    ids = []
    for content, context in CORPUS:
        memory = replace(b.memory(space.id, content, EMBED.embed([content])[0]), context=context,
                         follows=ids[-1] if context else None)
        store.writes.write(WriteBatch(space.id, [memory]))
        ids.append(memory.id)
    return space.id, ids


def test_text_search_matches_stems_and_the_context_a_memory_is_read_with(store: GraphStore) -> None:
    space_id, ids = _load(store)
    found = store.search.text_search(MemoryFilter(space_id), "Who is researching adoptions?", 10)
    # the turn itself first (its own words), then the reply that carries it as context
    assert [h.memory.id for h in found] == [ids[0], ids[1]]
    paint = store.search.text_search(MemoryFilter(space_id), "paintings", 10)
    assert [h.memory.id for h in paint][:2] == [ids[4], ids[3]]
    assert len(paint) == 2


def test_the_context_is_searchable_but_not_shown_as_content(store: GraphStore) -> None:
    space_id, ids = _load(store)
    found = {h.memory.id: h.memory for h in store.search.text_search(MemoryFilter(space_id), "choose", 10)}
    assert set(found) == {ids[1], ids[2]}  # said it, and read with it
    assert "choose" not in found[ids[2]].content
    stored = store.reads.get_memory(space_id, ids[2])
    assert stored is not None and stored.context == "Melanie: What made you choose them?"


def test_the_turn_a_memory_continues_comes_back_with_every_read(store: GraphStore) -> None:
    space_id, ids = _load(store)
    where = MemoryFilter(space_id)
    follows = {ids[1]: ids[0], ids[2]: ids[1], ids[4]: ids[3]}
    for memory_id in ids:
        stored = store.reads.get_memory(space_id, memory_id)
        assert stored is not None and stored.follows == follows.get(memory_id)
    hits = store.search.hybrid_search(where, EMBED.embed(["painting"])[0], "paintings", 10)
    for hit in (*hits.by_vector, *hits.by_text, *store.reads.list_memories(where, 10)):
        memory = hit.memory if hasattr(hit, "memory") else hit
        assert memory.follows == follows.get(memory.id)


def test_speaker_and_observed_at_round_trip_in_the_callers_offset(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone(timedelta(hours=-7)))
    memory = replace(b.memory(space.id, "I went to a support group", EMBED.embed(["x"])[0]),
                     speaker="Caroline", observed_at=when)
    store.writes.write(WriteBatch(space.id, [memory]))
    back = store.reads.get_memory(space.id, memory.id)
    assert back is not None and back.speaker == "Caroline"
    assert back.observed_at == when and back.observed_at.utcoffset() == timedelta(hours=-7)
    [listed] = store.reads.list_memories(MemoryFilter(space.id), 5)
    assert (listed.speaker, listed.observed_at) == ("Caroline", when)


def test_the_latest_save_of_a_writer_is_found_within_a_window(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    start = datetime(2026, 3, 1, tzinfo=UTC)
    older = replace(b.memory(space.id, "first", EMBED.embed(["a"])[0]), created_at=start,
                    created_by="alice")
    newer = replace(b.memory(space.id, "second", EMBED.embed(["b"])[0]),
                    created_at=start + timedelta(minutes=5), created_by="alice")
    other = replace(b.memory(space.id, "by bob", EMBED.embed(["c"])[0]),
                    created_at=start + timedelta(minutes=6), created_by="bob")
    for memory in (older, newer, other):
        store.writes.write(WriteBatch(space.id, [memory]))
    found = store.reads.latest_by_writer(space.id, "alice", start)
    assert found is not None and found.id == newer.id
    assert store.reads.latest_by_writer(space.id, "alice", start + timedelta(minutes=10)) is None
    assert store.reads.latest_by_writer(space.id, "carol", start) is None


def test_a_crowded_other_space_cannot_hide_a_match_of_this_one(store: GraphStore) -> None:
    # More better-scoring matches in another space than the ranked window holds
    # (stores/sqlite/fulltext.py: 4 x limit + 100), so the window alone would miss ours.
    ours, crowd = b.space(), b.space()
    store.directory.create_space(ours)
    store.directory.create_space(crowd)
    loud = [b.memory(crowd.id, f"deploy deploy deploy {n}", EMBED.embed(["d"])[0])
            for n in range(130)]
    store.writes.write(WriteBatch(crowd.id, loud))
    quiet = b.memory(ours.id, "we deploy the billing service on Fridays after lunch",
                     EMBED.embed(["q"])[0])
    store.writes.write(WriteBatch(ours.id, [quiet]))
    found = store.search.text_search(MemoryFilter(ours.id), "deploy", 1)
    assert [h.memory.id for h in found] == [quiet.id]
    assert [h.memory.id for h in store.search.keyword_search(MemoryFilter(ours.id), "deploy", 1)] == [
        quiet.id]


def test_nearest_active_lists_only_active_memories_close_enough(store: GraphStore) -> None:
    space, other = b.space(), b.space()
    store.directory.create_space(space)
    store.directory.create_space(other)
    close = b.memory(space.id, "close", [0.9, 0.436, 0.0])
    fair = b.memory(space.id, "fair", [0.6, 0.8, 0.0])
    far = b.memory(space.id, "far", [0.2, 0.98, 0.0])
    gone = b.memory(space.id, "gone", [1.0, 0.0, 0.0])
    elsewhere = b.memory(other.id, "elsewhere", [1.0, 0.0, 0.0])
    store.writes.write(WriteBatch(space.id, [close, fair, far, gone]))
    store.writes.write(WriteBatch(other.id, [elsewhere]))
    probe = [1.0, 0.0, 0.0]
    assert [h.memory.id for h in store.search.nearest_active(space.id, probe, 5, 0.5)] == [
        gone.id, close.id, fair.id]
    store.writes.forget(space.id, gone.id, "wrong", "tester", b.BASE)
    found = store.search.nearest_active(space.id, probe, 5, 0.5)
    assert [h.memory.id for h in found] == [close.id, fair.id]
    assert abs(found[0].score - 0.9) < 1e-6 and all(h.memory.active for h in found)
    assert store.search.nearest_active(space.id, probe, 1, 0.5)[0].memory.id == close.id
    assert store.search.nearest_active(space.id, probe, 5, 0.95) == []


def test_another_spaces_words_do_not_move_this_spaces_text_scores(store: GraphStore) -> None:
    """BM25 statistics are the space's own: what other teams store neither reorders nor
    rescores a space's full-text hits (and so cannot be read off them)."""
    space_id, _ = _load(store)
    query = "Caroline painted the lake"
    before = [(h.memory.id, round(h.score, 5))
              for h in store.search.text_search(MemoryFilter(space_id), query, 10)]
    other = b.space()
    store.directory.create_space(other)
    flood = [b.memory(other.id, f"Caroline painted the lake, take {i}", EMBED.embed([str(i)])[0])
             for i in range(40)]
    store.writes.write(WriteBatch(other.id, flood))
    after = [(h.memory.id, round(h.score, 5))
             for h in store.search.text_search(MemoryFilter(space_id), query, 10)]
    assert after == before and len(before) >= 3


def test_a_memory_without_a_vector_is_found_by_text(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    with_vector = b.memory(space.id, "Kafka carries the billing events", EMBED.embed(["k"])[0])
    pending = b.memory(space.id, "Kafka retention is seven days", None)
    store.writes.write(WriteBatch(space.id, [with_vector, pending]))
    found = [h.memory.id for h in store.search.text_search(MemoryFilter(space.id), "kafka retention", 10)]
    assert found == [pending.id, with_vector.id]
    near = store.search.vector_search(MemoryFilter(space.id), EMBED.embed(["k"])[0], 10)
    assert [h.memory.id for h in near] == [with_vector.id]


def test_hybrid_search_gives_the_vector_and_text_lists_of_the_separate_searches(
        store: GraphStore) -> None:
    space_id, ids = _load(store)
    where, probe = MemoryFilter(space_id), EMBED.embed(["Who painted the lake?"])[0]
    hits = store.search.hybrid_search(where, probe, "Who painted the lake?", 3)
    by_vector, by_text = hits.by_vector, hits.by_text
    alone_vector = store.search.vector_search(where, probe, 3)
    alone_text = store.search.text_search(where, "Who painted the lake?", 3)
    assert [(h.memory.id, h.score) for h in by_vector] == [(h.memory.id, h.score) for h in alone_vector]
    assert [(h.memory.id, h.score) for h in by_text] == [(h.memory.id, h.score) for h in alone_text]
    assert by_text and by_vector and ids[3] in {h.memory.id for h in by_text}
    # a memory on both lists is the same record on each
    both = {h.memory.id for h in by_vector} & {h.memory.id for h in by_text}
    for memory_id in both:
        assert ([h.memory for h in by_vector if h.memory.id == memory_id]
                == [h.memory for h in by_text if h.memory.id == memory_id])
    # every memory of either list is scored by both: its cosine, and its BM25 (0 without the
    # words), as the full lists would score it
    found = {h.memory.id for h in (*by_vector, *by_text)}
    every_cosine = {h.memory.id: h.score for h in store.search.vector_search(where, probe, 50)}
    every_bm25 = {h.memory.id: h.score for h in store.search.text_search(where, "Who painted the lake?", 50)}
    assert set(hits.cosines) == set(hits.text_scores) == found
    assert {m: round(c, 5) for m, c in hits.cosines.items()} == {
        m: round(every_cosine[m], 5) for m in found}
    assert {m: round(t, 5) for m, t in hits.text_scores.items()} == {
        m: round(every_bm25.get(m, 0.0), 5) for m in found}
    assert any(t == 0.0 for t in hits.text_scores.values())  # a vector hit without the words
