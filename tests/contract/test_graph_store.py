"""The GraphStore contract: every behaviour of the port, once, for every store."""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memspace.domain.chunks import ChunkSource
from memspace.domain.errors import Conflict, NotFound
from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, ApiKey, Document, DocumentStatus, MemoryFilter, RelationType, Usage
from memspace.domain.ports import ChangeAfter, PageAfter, WriteBatch
from memspace.domain.text import content_hash
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import STORE_PARAMS, make_store

EMBED = HashEmbedder()


def vec(text: str) -> list[float]:
    return EMBED.embed([text])[0]


def new_space(store: GraphStore, slug: str = "acme"):
    space = b.space(slug)
    store.directory.create_space(space)
    return space


def add(store: GraphStore, space_id: str, content: str, **kw):
    memory = b.memory(space_id, content, vec(content), **kw)
    store.writes.write(WriteBatch(space_id, [memory]))
    return memory


# -- spaces and keys --------------------------------------------------------------------------


def test_spaces_are_found_by_id_and_slug(store: GraphStore) -> None:
    space = new_space(store)
    assert store.directory.get_space(space.id) == space
    assert store.directory.get_space_by_slug(space.slug) == space
    assert space in store.directory.list_spaces()
    assert store.directory.get_space_by_slug("no-such-space-anywhere") is None


def test_a_taken_slug_is_a_conflict(store: GraphStore) -> None:
    space = new_space(store)
    with pytest.raises(Conflict):
        store.directory.create_space(replace(space, id=space.id + "-other"))


def test_keys_keep_grants_and_can_be_revoked(store: GraphStore) -> None:
    one, two = new_space(store), new_space(store)
    key = ApiKey(
        id=f"key-{one.id}", name="agent", prefix="msk_abcd1234", sha256=f"hash-{one.id}",
        grants={one.id: Access.READWRITE, two.id: Access.READ}, default_space_id=one.id,
        active_space_id=None, created_at=b.BASE,
    )
    store.directory.create_key(key)
    assert store.directory.get_key_by_hash(key.sha256) == key
    # The granted spaces come with every read of the key, whole (a call then resolves its
    # space without another read); nothing else comes with them.
    new_space(store)
    for read in (store.directory.get_key_by_hash(key.sha256), store.directory.get_key(key.id),
                 next(k for k in store.directory.list_keys() if k.id == key.id)):
        assert read is not None and sorted(read.spaces, key=lambda s: s.slug) == sorted(
            [one, two], key=lambda s: s.slug)
    store.directory.set_active_space(key.id, two.id)
    active = store.directory.get_key(key.id)
    assert active is not None and active.active_space_id == two.id
    store.directory.revoke_key(key.id, b.BASE + timedelta(days=1))
    revoked = store.directory.get_key(key.id)
    assert revoked is not None and revoked.revoked_at == b.BASE + timedelta(days=1)
    assert any(k.id == key.id for k in store.directory.list_keys())


# -- writing ----------------------------------------------------------------------------------


def test_written_memories_read_back_whole(store: GraphStore) -> None:
    space = new_space(store)
    memory = add(store, space.id, "The API gateway is Kong", category="architecture")
    got = store.reads.get_memory(space.id, memory.id)
    assert got is not None
    assert (got.content, got.category, got.active, got.created_at) == (
        "The API gateway is Kong", "architecture", True, memory.created_at)
    assert store.reads.find_active_by_hash(space.id, content_hash("the api gateway is  KONG")) == got


def test_a_memory_is_invisible_from_another_space(store: GraphStore) -> None:
    mine, other = new_space(store), new_space(store)
    memory = add(store, mine.id, "Secret roadmap item")
    assert store.reads.get_memory(other.id, memory.id) is None
    assert store.reads.find_active_by_hash(other.id, memory.content_hash) is None


def test_updates_edge_deactivates_the_old_fact(store: GraphStore) -> None:
    space = new_space(store)
    old = add(store, space.id, "Deploys happen on Tuesday")
    new = b.memory(space.id, "Deploys happen on Thursday", vec("Deploys happen on Thursday"))
    edge = b.relation(new, old, RelationType.UPDATES)
    store.writes.write(WriteBatch(space.id, [new], [edge], {old.id: new.id}, at=new.created_at))
    retired = store.reads.get_memory(space.id, old.id)
    assert retired is not None and not retired.active
    assert retired.invalidated_by == new.id and retired.invalidated_at == new.created_at
    assert store.relations.relations_of(space.id, old.id) == [edge]


def test_superseding_an_inactive_memory_conflicts_and_writes_nothing(store: GraphStore) -> None:
    space = new_space(store)
    old = add(store, space.id, "Lunch is at noon")
    first = b.memory(space.id, "Lunch is at one", vec("Lunch is at one"))
    store.writes.write(WriteBatch(space.id, [first], [b.relation(first, old, RelationType.UPDATES)],
                           {old.id: first.id}))
    late = b.memory(space.id, "Lunch is at two", vec("Lunch is at two"))
    with pytest.raises(Conflict):
        store.writes.write(WriteBatch(space.id, [late], [b.relation(late, old, RelationType.UPDATES)],
                               {old.id: late.id}))
    assert store.reads.get_memory(space.id, late.id) is None
    assert store.relations.relations_of(space.id, old.id) == store.relations.relations_of(space.id, first.id)
    assert len(store.relations.relations_of(space.id, old.id)) == 1


def test_a_relation_cannot_reach_into_another_space(store: GraphStore) -> None:
    mine, other = new_space(store), new_space(store)
    theirs = add(store, other.id, "Their fact")
    new = b.memory(mine.id, "My fact", vec("My fact"))
    with pytest.raises((NotFound, Conflict)):
        store.writes.write(WriteBatch(mine.id, [new], [b.relation(new, theirs)]))
    assert store.reads.get_memory(mine.id, new.id) is None
    assert store.relations.relations_of(other.id, theirs.id) == []


def test_forget_records_why_and_only_once(store: GraphStore) -> None:
    space = new_space(store)
    memory = add(store, space.id, "Use tabs")
    at = b.BASE + timedelta(days=2)
    gone = store.writes.forget(space.id, memory.id, "team switched to spaces", "alice", at)
    assert (gone.active, gone.forget_reason, gone.forgotten_by, gone.invalidated_at) == (
        False, "team switched to spaces", "alice", at)
    with pytest.raises(Conflict):
        store.writes.forget(space.id, memory.id, "again", "alice", at)
    with pytest.raises(NotFound):
        store.writes.forget(space.id, "no-such-memory", "x", "alice", at)


# -- listing ----------------------------------------------------------------------------------


def test_listing_is_newest_first_and_pages_without_gaps(store: GraphStore) -> None:
    space = new_space(store)
    made = [add(store, space.id, f"fact number {i}", minutes=i) for i in range(7)]
    where = MemoryFilter(space.id)
    first = store.reads.list_memories(where, 3)
    assert [m.id for m in first] == [m.id for m in reversed(made)][:3]
    seen = list(first)
    while True:
        page = store.reads.list_memories(where, 3, PageAfter(seen[-1].created_at, seen[-1].id))
        if not page:
            break
        seen += page
    assert [m.id for m in seen] == [m.id for m in reversed(made)]


def test_the_newest_stay_first_after_an_import_of_older_memories(store: GraphStore) -> None:
    """Memories written later but dated earlier (an import) never hide the newest ones."""
    space = new_space(store)
    newest = [add(store, space.id, f"fresh fact {i}", minutes=10_000 + i) for i in range(3)]
    older = [b.memory(space.id, f"imported fact {i}", vec(f"imported {i}"), minutes=i)
             for i in range(600)]
    store.writes.write(WriteBatch(space.id, older))
    listed = store.reads.list_memories(MemoryFilter(space.id), 5)
    assert [m.id for m in listed[:3]] == [m.id for m in reversed(newest)]
    assert [m.content for m in listed[3:]] == ["imported fact 599", "imported fact 598"]


def test_listing_filters_category_and_inactive(store: GraphStore) -> None:
    space = new_space(store)
    keep = add(store, space.id, "Postgres 16", category="stack")
    add(store, space.id, "Standup at 9", category="process")
    gone = add(store, space.id, "Redis 6", category="stack")
    store.writes.forget(space.id, gone.id, "removed", "bob", b.BASE + timedelta(days=1))
    stack = store.reads.list_memories(MemoryFilter(space.id, "stack"), 10)
    assert [m.id for m in stack] == [keep.id]
    everything = store.reads.list_memories(MemoryFilter(space.id, "stack", include_inactive=True), 10)
    assert {m.id for m in everything} == {keep.id, gone.id}


def test_space_stats_count_what_is_there(store: GraphStore) -> None:
    space = new_space(store)
    a = add(store, space.id, "alpha")
    c = b.memory(space.id, "alpha two", vec("alpha two"))
    store.writes.write(WriteBatch(space.id, [c], [b.relation(c, a, RelationType.UPDATES)], {a.id: c.id}))
    stats = store.directory.space_stats(space.id)
    assert (stats.active_memories, stats.inactive_memories, stats.relations, stats.documents) == (
        1, 1, 1, 0)


def test_space_stats_follow_every_change(store: GraphStore) -> None:
    space = new_space(store)
    a = add(store, space.id, "alpha")
    assert store.directory.space_stats(space.id).active_memories == 1
    add(store, space.id, "beta")
    assert store.directory.space_stats(space.id).active_memories == 2
    store.writes.forget(space.id, a.id, "wrong", "test", a.created_at)
    stats = store.directory.space_stats(space.id)
    assert (stats.active_memories, stats.inactive_memories) == (1, 1)
    store.documents.add_document(b.document(space.id))
    assert store.directory.space_stats(space.id).documents == 1



@pytest.mark.parametrize("kind", STORE_PARAMS)
def test_counts_moved_along_by_writes_equal_a_fresh_count(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    store = make_store(kind, request, tmp_path)
    try:
        space = new_space(store)
        old = add(store, space.id, "deploys on fridays")
        add(store, space.id, "the pager rotates weekly")
        assert store.directory.space_stats(space.id).active_memories == 2  # counted: later writes move it
        new = b.memory(space.id, "deploys on thursdays", EMBED.embed(["deploys on thursdays"])[0])
        store.writes.write(WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)],
                               supersede={old.id: new.id}))
        add(store, space.id, "the queue keeps seven days")
        moved = store.directory.space_stats(space.id)
        fresh = make_store(kind, request, tmp_path)  # counts from the store itself
        try:
            assert moved == fresh.directory.space_stats(space.id)
            assert (moved.active_memories, moved.inactive_memories, moved.relations) == (3, 1, 1)
        finally:
            fresh.close()
    finally:
        store.close()

# -- search -----------------------------------------------------------------------------------


def test_vector_search_returns_the_exact_top_k_of_the_space(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    texts = [f"service {w} owns the billing queue" for w in ("alpha", "beta", "gamma")]
    texts += ["lunch menu on friday", "holiday calendar for march"]
    made = {t: add(store, space.id, t) for t in texts}
    add(store, other.id, "service alpha owns the billing queue")  # same text, other space
    hits = store.search.vector_search(MemoryFilter(space.id), vec("service alpha owns the billing queue"), 3)
    assert next(h.memory.id for h in hits) == made[texts[0]].id
    assert hits[0].score == pytest.approx(1.0, abs=1e-3)
    assert all(h.memory.space_id == space.id for h in hits)
    assert len(hits) == 3 and hits[0].score >= hits[1].score >= hits[2].score
    assert {h.memory.id for h in hits[1:]} == {made[texts[1]].id, made[texts[2]].id}


def test_vector_search_skips_inactive_unless_asked_and_filters_category(store: GraphStore) -> None:
    space = new_space(store)
    gone = add(store, space.id, "queue retention is 7 days", category="ops")
    kept = add(store, space.id, "queue retention is 14 days", category="ops")
    add(store, space.id, "queue retention doc owner is Ann", category="people")
    store.writes.forget(space.id, gone.id, "changed", "ann", b.BASE + timedelta(days=1))
    probe = vec("queue retention is 7 days")
    active = store.search.vector_search(MemoryFilter(space.id, "ops"), probe, 5)
    assert [h.memory.id for h in active] == [kept.id]
    both = store.search.vector_search(MemoryFilter(space.id, "ops", include_inactive=True), probe, 5)
    assert next(h.memory.id for h in both) == gone.id


@pytest.mark.parametrize("kind", STORE_PARAMS)
def test_a_warm_vector_cache_sees_what_a_replica_wrote_and_forgot(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # Two store objects on the same data stand for two server processes: the first's cache is
    # warm when the second writes, so only the version check can tell it to refresh.
    first, replica = make_store(kind, request, tmp_path), make_store(kind, request, tmp_path)
    try:
        space = new_space(first)
        old = add(first, space.id, "the billing queue keeps 7 days")
        probe = vec("the billing queue keeps 14 days")
        assert [h.memory.id for h in first.search.vector_search(MemoryFilter(space.id), probe, 5)] == [
            old.id]
        new = add(replica, space.id, "the billing queue keeps 14 days")
        replica.writes.forget(space.id, old.id, "changed", "ann", b.BASE + timedelta(days=1))
        found = first.search.vector_search(MemoryFilter(space.id), probe, 5)
        assert [h.memory.id for h in found] == [new.id]
        assert first.search.vector_search(MemoryFilter(space.id), probe, 5)[0].memory.id == new.id
    finally:
        first.close()
        replica.close()


def test_text_search_ranks_by_bm25_within_the_space(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    best = add(store, space.id, "kafka kafka cluster sizing for kafka consumers")
    some = add(store, space.id, "the kafka cluster is in eu-west")
    add(store, space.id, "nothing relevant here")
    add(store, other.id, "kafka everywhere kafka kafka")
    hits = store.search.text_search(MemoryFilter(space.id), "kafka sizing", 10)
    assert [h.memory.id for h in hits] == [best.id, some.id]
    assert hits[0].score > hits[1].score > 0


def test_keyword_search_tolerates_typos_in_long_words(store: GraphStore) -> None:
    space = new_space(store)
    target = add(store, space.id, "The schema migration runs before every deploy")
    assert [h.memory.id for h in store.search.keyword_search(MemoryFilter(space.id), "migraiton", 5)] == [
        target.id]
    assert [h.memory.id for h in store.search.keyword_search(MemoryFilter(space.id), "shcema", 5)] == [
        target.id]


def test_keyword_typos_reach_words_added_after_the_first_search(store: GraphStore) -> None:
    space = new_space(store)
    add(store, space.id, "The schema is versioned")
    assert store.search.keyword_search(MemoryFilter(space.id), "shcema", 5)  # vocabulary read now
    later = add(store, space.id, "The migration runs nightly")
    found = store.search.keyword_search(MemoryFilter(space.id), "migraiton", 5)
    assert [h.memory.id for h in found] == [later.id]


def test_keyword_search_keeps_short_words_exact(store: GraphStore) -> None:
    space = new_space(store)
    plant = add(store, space.id, "The plant in the lobby needs water")
    plan = add(store, space.id, "The plan for Q3 is hiring")
    assert [h.memory.id for h in store.search.keyword_search(MemoryFilter(space.id), "plan", 5)] == [plan.id]
    assert [h.memory.id for h in store.search.keyword_search(MemoryFilter(space.id), "plant", 5)] == [
        plant.id]


def test_keyword_search_needs_every_word(store: GraphStore) -> None:
    space = new_space(store)
    both = add(store, space.id, "release checklist for mobile")
    add(store, space.id, "release notes for web")
    hits = store.search.keyword_search(MemoryFilter(space.id), "release mobile", 5)
    assert [h.memory.id for h in hits] == [both.id]


# -- graph ------------------------------------------------------------------------------------


def test_neighbours_reach_two_hops_in_either_direction_and_no_further(store: GraphStore) -> None:
    space = new_space(store)
    a, bb, c, d = (add(store, space.id, f"chain link {x}") for x in "abcd")
    # a <- b <- c <- d : each newer one extends the older one
    store.writes.write(WriteBatch(space.id, [], [b.relation(bb, a), b.relation(c, bb), b.relation(d, c)]))
    near = store.relations.neighbours(space.id, [a.id], hops=2)
    assert {(n.memory.id, n.hops) for n in near} == {(bb.id, 1), (c.id, 2)}
    assert all(n.origin_id == a.id and n.direction == "in" for n in near)
    middle = store.relations.neighbours(space.id, [bb.id], hops=2)
    assert {(n.memory.id, n.hops, n.direction) for n in middle} == {
        (a.id, 1, "out"), (c.id, 1, "in"), (d.id, 2, "in")}


def test_neighbours_survive_cycles(store: GraphStore) -> None:
    space = new_space(store)
    a, bb = add(store, space.id, "cycle one"), add(store, space.id, "cycle two")
    store.writes.write(WriteBatch(space.id, [], [b.relation(a, bb, RelationType.DERIVES),
                                          b.relation(bb, a, RelationType.DERIVES)]))
    near = store.relations.neighbours(space.id, [a.id, bb.id], hops=2)
    assert sorted((n.origin_id, n.memory.id, n.hops) for n in near) == sorted(
        [(a.id, bb.id, 1), (bb.id, a.id, 1)])


def test_neighbours_flag_inactive_memories_and_respect_the_bound(store: GraphStore) -> None:
    space = new_space(store)
    hub = add(store, space.id, "hub fact")
    spokes = [add(store, space.id, f"spoke {i}") for i in range(6)]
    store.writes.write(WriteBatch(space.id, [], [b.relation(s, hub) for s in spokes]))
    store.writes.forget(space.id, spokes[0].id, "wrong", "eve", b.BASE + timedelta(days=3))
    near = store.relations.neighbours(space.id, [hub.id], hops=2, per_origin=4)
    assert len(near) == 4
    full = store.relations.neighbours(space.id, [hub.id], hops=2, per_origin=50)
    flags = {n.memory.id: n.memory.active for n in full}
    assert flags[spokes[0].id] is False and sum(flags.values()) == 5


# -- documents --------------------------------------------------------------------------------


def test_documents_are_listed_per_space_newest_first(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    docs = [
        Document(f"doc-{space.id}-{i}", space.id, f"notes {i}", "markdown", 100 + i, f"sha{i}",
                 DocumentStatus.QUEUED, b.BASE + timedelta(minutes=i), "alice")
        for i in range(3)
    ]
    for doc in docs:
        store.documents.add_document(doc)
    assert store.documents.get_document(space.id, docs[0].id) == docs[0]
    assert store.documents.get_document(other.id, docs[0].id) is None
    page = store.documents.list_documents(space.id, 2)
    assert [d.id for d in page] == [docs[2].id, docs[1].id]
    rest = store.documents.list_documents(space.id, 2, PageAfter(page[-1].created_at, page[-1].id))
    assert [d.id for d in rest] == [docs[0].id]
    assert store.documents.list_documents(other.id, 10) == []


def test_a_documents_memories_come_in_written_order_with_superseded_ones(store: GraphStore) -> None:
    space = new_space(store)
    doc = Document(f"doc-{space.id}-facts", space.id, "runbook", "markdown", 10, "sha-facts",
                   DocumentStatus.DONE, b.BASE, "alice")
    store.documents.add_document(doc)
    facts = [replace(b.memory(space.id, f"runbook fact {i}", vec(f"runbook fact {i}")),
                     document_id=doc.id) for i in range(3)]
    store.writes.write(WriteBatch(space.id, facts))
    typed = add(store, space.id, "typed by hand")
    fix = b.memory(space.id, "runbook fact 0, corrected", vec("runbook fact 0 corrected"))
    store.writes.write(WriteBatch(space.id, [fix], [b.relation(fix, facts[0], RelationType.UPDATES)],
                           {facts[0].id: fix.id}))
    found = store.reads.memories_of_document(space.id, doc.id, 10)
    assert [m.id for m in found] == [f.id for f in facts]
    assert [m.active for m in found] == [False, True, True]
    assert typed.id not in {m.id for m in found}
    assert [m.id for m in store.reads.memories_of_document(space.id, doc.id, 2)] == [f.id for f in facts[:2]]
    assert store.reads.memories_of_document(new_space(store).id, doc.id, 10) == []


def test_vector_search_sees_writes_and_forgets_made_after_earlier_searches(
    store: GraphStore,
) -> None:
    space = new_space(store)
    first = add(store, space.id, "cache warm fact one")
    probe = vec("cache warm fact two")
    assert [h.memory.id for h in store.search.vector_search(MemoryFilter(space.id), probe, 5)] == [first.id]
    later = [add(store, space.id, f"cache warm fact {w}") for w in ("two", "three")]
    store.writes.forget(space.id, first.id, "stale", "amy", b.BASE + timedelta(days=1))
    hits = store.search.vector_search(MemoryFilter(space.id), probe, 5)
    assert hits[0].memory.id == later[0].id
    assert {h.memory.id for h in hits} == {m.id for m in later}


# -- usage and idempotency --------------------------------------------------------------------


def test_existing_hashes_names_only_active_memories_of_the_space(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    kept = add(store, space.id, "kept fact")
    gone = add(store, space.id, "gone fact")
    theirs = add(store, other.id, "their fact")
    store.writes.forget(space.id, gone.id, "x", "y", b.BASE + timedelta(days=1))
    assert store.reads.existing_hashes(
        space.id, [kept.content_hash, gone.content_hash, theirs.content_hash, "nope"]
    ) == {kept.content_hash}


def test_usage_totals_accumulate_per_space(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    store.ledger.record_usage(space.id, Usage(1, 100, 20))
    store.ledger.record_usage(space.id, Usage(2, 50, 5))
    totals = store.ledger.usage_totals(space.id)
    assert (totals.llm_calls, totals.prompt_tokens, totals.completion_tokens) == (3, 150, 25)
    assert store.ledger.usage_totals(other.id).llm_calls == 0


def test_an_idempotency_key_is_claimed_once_then_replays(store: GraphStore) -> None:
    space = new_space(store)
    assert store.ledger.claim_idempotency(space.id, "key-a", "retry-1", b.BASE) is None
    with pytest.raises(Conflict, match="still running"):
        store.ledger.claim_idempotency(space.id, "key-a", "retry-1", b.BASE)
    assert store.ledger.claim_idempotency(space.id, "key-b", "retry-1", b.BASE) is None  # other caller
    store.ledger.complete_idempotency(space.id, "key-a", "retry-1", '{"status": "created"}')
    assert store.ledger.claim_idempotency(space.id, "key-a", "retry-1", b.BASE) == '{"status": "created"}'
    store.ledger.release_idempotency(space.id, "key-b", "retry-1")
    assert store.ledger.claim_idempotency(space.id, "key-b", "retry-1", b.BASE) is None


def test_relations_among_returns_only_edges_inside_the_set(store: GraphStore) -> None:
    space = new_space(store)
    a, c, d = (add(store, space.id, f"subgraph node {x}") for x in "acd")
    inner, outer = b.relation(c, a), b.relation(d, c, RelationType.DERIVES)
    store.writes.write(WriteBatch(space.id, [], [inner, outer]))
    assert store.relations.relations_among(space.id, [a.id, c.id]) == [inner]
    assert store.relations.relations_among(space.id, [a.id, c.id, d.id]) == [inner, outer]
    assert store.relations.relations_among(space.id, []) == []


def test_two_simultaneous_supersedes_of_one_memory_let_exactly_one_win(store: GraphStore) -> None:
    space = new_space(store)
    old = add(store, space.id, "The race target")
    rivals = [b.memory(space.id, f"Rival {n}", vec(f"Rival {n}")) for n in range(2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def supersede(new) -> None:  # type: ignore[no-untyped-def]
        start.wait()
        try:
            store.writes.write(WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)],
                                   {old.id: new.id}))
            outcomes.append("won")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=supersede, args=(r,)) for r in rivals]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["conflict", "won"]
    winner = store.reads.get_memory(space.id, old.id)
    assert winner is not None and winner.invalidated_by in {r.id for r in rivals}
    assert sum(store.reads.get_memory(space.id, r.id) is not None for r in rivals) == 1


def test_document_status_error_and_progress_are_updated(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    doc = b.document(space.id)
    store.documents.add_document(doc)
    started = store.documents.update_document(space.id, doc.id, DocumentStatus.PROCESSING, chunks_total=4)
    assert (started.status, started.chunks_total, started.chunks_done) == (
        DocumentStatus.PROCESSING, 4, 0)
    failed = store.documents.update_document(space.id, doc.id, DocumentStatus.FAILED, "model down",
                                   chunks_done=2)
    assert (failed.status, failed.error, failed.chunks_total, failed.chunks_done) == (
        DocumentStatus.FAILED, "model down", 4, 2)
    requeued = store.documents.update_document(space.id, doc.id, DocumentStatus.QUEUED)
    assert (requeued.error, requeued.chunks_done) == (None, 2)
    assert store.documents.get_document(space.id, doc.id) == requeued
    with pytest.raises(NotFound):
        store.documents.update_document(other.id, doc.id, DocumentStatus.DONE)


def test_a_document_lease_is_held_by_one_owner_until_it_runs_out(store: GraphStore) -> None:
    space = new_space(store)
    doc = replace(b.document(space.id), uploaded_by_key="key-1")
    store.documents.add_document(doc)
    assert store.documents.get_document(space.id, doc.id) == doc  # the uploading key is kept
    now, lease = b.BASE, timedelta(minutes=2)
    taken = store.documents.claim_document(space.id, doc.id, "server-a", now, now + lease)
    assert taken is not None and taken.status is DocumentStatus.PROCESSING
    later = now + timedelta(minutes=1)
    assert store.documents.claim_document(space.id, doc.id, "server-b", later, later + lease) is None
    renewed = store.documents.claim_document(space.id, doc.id, "server-a", later, later + lease)
    assert renewed is not None
    expired = later + lease + timedelta(seconds=1)  # server-a stopped renewing (it crashed)
    assert store.documents.claim_document(space.id, doc.id, "server-b", expired, expired + lease)
    store.documents.release_document(space.id, doc.id, "server-b")  # a clean stop
    assert store.documents.claim_document(space.id, doc.id, "server-a", expired, expired + lease)
    store.documents.update_document(space.id, doc.id, DocumentStatus.DONE, uploaded_by_key="key-2")
    assert store.documents.claim_document(space.id, doc.id, "server-c", expired, expired + lease) is None
    done = store.documents.get_document(space.id, doc.id)
    assert done is not None and (done.status, done.uploaded_by_key) == (DocumentStatus.DONE, "key-2")
    assert store.documents.claim_document(new_space(store).id, doc.id, "x", now, now + lease) is None


def test_a_space_holds_one_document_per_sha256(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    doc = b.document(space.id)
    store.documents.add_document(doc)
    with pytest.raises(Conflict):
        store.documents.add_document(replace(doc, id=doc.id + "-again"))
    store.documents.add_document(replace(doc, id=doc.id + "-elsewhere", space_id=other.id))
    assert store.documents.find_document_by_sha256(space.id, doc.sha256) == doc
    assert store.documents.find_document_by_sha256(space.id, "no-such-sha") is None
    assert [d.id for d in store.documents.list_documents(space.id, 10)] == [doc.id]


def test_unfinished_documents_are_found_across_spaces_oldest_first(store: GraphStore) -> None:
    one, two = new_space(store), new_space(store)
    late = b.document(one.id, status=DocumentStatus.QUEUED, minutes=30)
    early = b.document(two.id, status=DocumentStatus.PROCESSING, minutes=10)
    finished = b.document(one.id, status=DocumentStatus.DONE, minutes=20)
    for doc in (late, early, finished):
        store.documents.add_document(doc)
    found = [d.id for d in store.documents.documents_with_status(
        [DocumentStatus.QUEUED, DocumentStatus.PROCESSING])]
    assert [i for i in found if i in {late.id, early.id, finished.id}] == [early.id, late.id]


def test_a_chunk_write_links_its_facts_and_advances_the_document_at_once(store: GraphStore) -> None:
    space = new_space(store)
    doc = b.document(space.id, status=DocumentStatus.PROCESSING, chunks_total=3)
    store.documents.add_document(doc)
    facts = [replace(b.memory(space.id, text, vec(text)), document_id=doc.id, origin="page 2")
             for text in ("The Pro plan costs 49 euros", "The Team plan includes SSO")]
    store.writes.write(WriteBatch(space.id, facts, source=ChunkSource(doc.id, 1, "page 2")))
    read = store.reads.get_memory(space.id, facts[0].id)
    assert read is not None and (read.document_id, read.origin) == (doc.id, "page 2")
    progressed = store.documents.get_document(space.id, doc.id)
    assert progressed is not None
    assert (progressed.chunks_done, progressed.fact_count) == (2, 2)
    earlier = replace(b.memory(space.id, "Prices exclude VAT", vec("Prices exclude VAT")),
                      document_id=doc.id)
    store.writes.write(WriteBatch(space.id, [earlier], source=ChunkSource(doc.id, 0)))
    again = store.documents.get_document(space.id, doc.id)
    assert again is not None and (again.chunks_done, again.fact_count) == (2, 3)
    assert store.directory.space_stats(space.id).documents == 1


def test_a_failed_chunk_write_neither_links_nor_advances(store: GraphStore) -> None:
    space, other = new_space(store), new_space(store)
    doc = b.document(space.id, status=DocumentStatus.PROCESSING, chunks_total=2)
    store.documents.add_document(doc)
    gone = add(store, space.id, "Support hours are 9 to 5")
    store.writes.forget(space.id, gone.id, "wrong", "test", b.BASE + timedelta(days=1))
    fact = replace(b.memory(space.id, "Support hours are 8 to 6", vec("Support hours")),
                   document_id=doc.id)
    with pytest.raises(Conflict):
        store.writes.write(WriteBatch(space.id, [fact], [b.relation(fact, gone, RelationType.UPDATES)],
                               {gone.id: fact.id}, source=ChunkSource(doc.id, 0)))
    untouched = store.documents.get_document(space.id, doc.id)
    assert untouched is not None and (untouched.chunks_done, untouched.fact_count) == (0, 0)
    assert store.reads.get_memory(space.id, fact.id) is None
    stray = replace(b.memory(other.id, "Planted fact", vec("Planted fact")), document_id=doc.id)
    with pytest.raises(NotFound):
        store.writes.write(WriteBatch(other.id, [stray]))
    assert store.reads.get_memory(other.id, stray.id) is None


# -- change feed ------------------------------------------------------------------------------


def test_the_change_feed_lists_each_memory_once_at_its_latest_change(store: GraphStore) -> None:
    space = new_space(store)
    first = add(store, space.id, "feed one")
    burst = [b.memory(space.id, f"feed burst {i}", vec(f"feed burst {i}"), minutes=0)
             for i in range(5)]  # one write, one millisecond
    store.writes.write(WriteBatch(space.id, burst))
    replacement = b.memory(space.id, "feed one, corrected", vec("feed one, corrected"))
    store.writes.write(WriteBatch(space.id, [replacement],
                           [b.relation(replacement, first, RelationType.UPDATES)],
                           {first.id: replacement.id}))
    where = MemoryFilter(space.id)
    changes = store.reads.list_changes(where, 100)
    ids = [c.memory.id for c in changes]
    assert ids == sorted(m.id for m in burst) + sorted([first.id, replacement.id])
    assert [c.stamp for c in changes] == sorted(c.stamp for c in changes)
    assert changes[-2].memory.active is False or changes[-1].memory.active is False
    paged, after = [], None
    while True:
        page = store.reads.list_changes(where, 2, after)
        if not page:
            break
        paged += [c.memory.id for c in page]
        after = ChangeAfter(page[-1].stamp, page[-1].memory.id)
    assert paged == ids
    later = store.reads.list_changes(where, 100, since=replacement.created_at)
    assert {c.memory.id for c in later} == {first.id, replacement.id}


def test_an_updates_chain_with_two_active_heads_is_an_open_conflict(store: GraphStore) -> None:
    space = new_space(store)
    old = add(store, space.id, "The office closes at 18:00")
    new = b.memory(space.id, "The office closes at 19:00", vec("The office closes at 19:00"))
    edge = b.relation(new, old, RelationType.UPDATES)
    store.writes.write(WriteBatch(space.id, [new], [edge]))  # by hand: no supersede
    assert store.relations.open_conflicts(space.id, 10) == [edge]
    settled = b.memory(space.id, "The office closes at 20:00", vec("The office closes at 20:00"))
    store.writes.write(WriteBatch(space.id, [settled], [b.relation(settled, new, RelationType.UPDATES)],
                           {new.id: settled.id}))
    store.writes.forget(space.id, old.id, "settled", "hr", b.BASE + timedelta(days=1))
    assert store.relations.open_conflicts(space.id, 10) == []


def test_datetimes_come_back_to_the_microsecond_in_utc_from_every_read(store: GraphStore) -> None:
    """Neo4j sends a memory's datetimes as microseconds since the epoch, not as driver
    DateTimes (stores/neo4j/cypher/fields.py micros): the instant must survive exactly."""
    space = new_space(store)
    at = datetime(2024, 2, 29, 23, 59, 58, 123457, tzinfo=UTC)
    before = datetime(1969, 7, 20, 20, 17, 40, 999999, tzinfo=timezone(timedelta(hours=-5)))
    old = replace(b.memory(space.id, "The launch window opens at dawn",
                           vec("The launch window opens at dawn")), created_at=before)
    store.writes.write(WriteBatch(space.id, [old]))
    new = replace(b.memory(space.id, "The launch window opens at noon",
                           vec("The launch window opens at noon")), created_at=at)
    store.writes.write(WriteBatch(space.id, [new], [b.relation(new, old, RelationType.UPDATES)],
                           {old.id: new.id}, at=at))
    everything = MemoryFilter(space.id, include_inactive=True)
    hits = store.search.hybrid_search(everything, vec("launch window"), "launch window", 10)
    reads = {
        "get": [store.reads.get_memory(space.id, old.id), store.reads.get_memory(space.id, new.id)],
        "list": store.reads.list_memories(everything, 10),
        "hybrid": [h.memory for h in hits.by_vector],
        "neighbours": [n.memory for n in store.relations.neighbours(space.id, [new.id], hops=1)],
    }
    expected_ids = {"get": {old.id, new.id}, "list": {old.id, new.id},
                    "hybrid": {old.id, new.id}, "neighbours": {old.id}}
    for read, memories in reads.items():
        assert {m.id for m in memories if m is not None} == expected_ids[read], read
        for m in memories:
            assert m is not None
            expected = at if m.id == new.id else before
            assert m.created_at == expected and m.created_at.utcoffset() == timedelta(0), read
            if m.id == old.id:
                assert m.invalidated_at == at and m.invalidated_at.utcoffset() == timedelta(0), read


def test_store_info_is_kept_and_replaced(store: GraphStore) -> None:
    key = f"probe-{uuid.uuid4().hex}"
    assert store.store_info(key) is None
    store.set_store_info(key, "e5-small-v2")
    assert store.store_info(key) == "e5-small-v2"
    store.set_store_info(key, "all-minilm-l6-v2")
    assert store.store_info(key) == "all-minilm-l6-v2"


def test_a_store_holds_memories_once_one_is_written(store: GraphStore) -> None:
    space = new_space(store, "holds")
    store.writes.write(WriteBatch(space.id, [b.memory(space.id, "the first memory", embedding=vec("first"))]))
    assert store.holds_memories()
