"""A search's answer on Neo4j reads its hits, their neighbourhoods and the ids sharing their
short-id heads in one statement (MemoryReadStore.answer_reads, stores/neo4j/cypher/answer.py):
what it reads is exactly what the three reads it replaces read, in the space asked about only."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta

from memspace.domain.models import Memory, RelationType
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from tests.support import builders as b

HOPS, PER, HEAD, LIMIT = 2, 5, 8, 33


def _with_id(memory: Memory, head: str, tail: str) -> Memory:
    return replace(memory, id=head + tail * (32 - len(head)))


def test_the_one_read_answers_what_the_three_reads_answer(neo4j_store: Neo4jStore) -> None:
    store = neo4j_store
    mine, other = b.space(), b.space()
    store.directory.create_space(mine)
    store.directory.create_space(other)
    head = uuid.uuid4().hex[:8]
    hub = _with_id(b.memory(mine.id, "the hub fact"), head, "a")
    twin = _with_id(b.memory(mine.id, "a fact whose id starts like the hub's"), head, "b")
    chain = [b.memory(mine.id, f"chain link {n}") for n in range(3)]  # hub <- 0 <- 1 <- 2
    spokes = [b.memory(mine.id, f"spoke {n}") for n in range(7)]  # more than PER of them
    theirs = _with_id(b.memory(other.id, "another space's fact"), head, "c")
    edges = [b.relation(chain[0], hub), b.relation(chain[1], chain[0]),
             b.relation(chain[2], chain[1])] + [
        b.relation(s, chain[0], RelationType.DERIVES) for s in spokes]
    store.writes.write(WriteBatch(mine.id, [hub, twin, *chain, *spokes], edges))
    store.writes.write(WriteBatch(other.id, [theirs]))
    store.writes.forget(mine.id, spokes[-1].id, "wrong", "eve", b.BASE + timedelta(days=3))
    asked = [hub.id, chain[0].id, "0" * 32, theirs.id]

    read = store.reads.answer_reads(mine.id, asked, HOPS, PER, HEAD, LIMIT)

    assert read is not None
    assert sorted(read.memories, key=lambda m: m.id) == sorted(
        store.reads.get_memories(mine.id, asked), key=lambda m: m.id)
    assert {m.id for m in read.memories} == {hub.id, chain[0].id}
    near = store.relations.neighbours(mine.id, asked, hops=HOPS, per_origin=PER)
    assert read.neighbours == near
    assert {n.origin_id for n in near} == {hub.id, chain[0].id}
    assert any(n.hops == 2 for n in near) and any(not n.memory.active for n in read.neighbours)
    assert read.heads == {i[:HEAD] for i in [hub.id, chain[0].id, *(n.memory.id for n in near)]}
    assert sorted(read.sharing) == sorted(
        store.reads.ids_with_prefix(mine.id, sorted(read.heads), LIMIT))
    assert {hub.id, twin.id} <= set(read.sharing) and theirs.id not in read.sharing


def test_an_id_of_another_space_reads_like_a_missing_one(neo4j_store: Neo4jStore) -> None:
    store = neo4j_store
    mine, other = b.space(), b.space()
    store.directory.create_space(mine)
    store.directory.create_space(other)
    theirs = b.memory(other.id, "not yours")
    store.writes.write(WriteBatch(other.id, [theirs]))
    foreign = store.reads.answer_reads(mine.id, [theirs.id], HOPS, PER, HEAD, LIMIT)
    missing = store.reads.answer_reads(mine.id, ["f" * 32], HOPS, PER, HEAD, LIMIT)
    assert foreign == missing
    assert foreign is not None and foreign.memories == foreign.neighbours == []
