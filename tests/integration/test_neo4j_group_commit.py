"""Neo4j's group commit (stores/neo4j/group_commit.py): plain adds of several writers in one
transaction, each with the outcome it would have had alone."""

from __future__ import annotations

import threading

import pytest

from memspace.domain.errors import DuplicateContent
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.stores import PATIENT

pytestmark = pytest.mark.neo4j
EMBED = HashEmbedder()


def memory(space_id: str, content: str):
    return b.memory(space_id, content, EMBED.embed([content])[0])


def test_a_group_writes_each_batch_as_if_alone(neo4j_store: Neo4jStore) -> None:
    space = b.space("group-commit")
    neo4j_store.directory.create_space(space)
    stored = memory(space.id, "The pager rotates weekly")
    neo4j_store.writes.write(WriteBatch(space.id, [stored]))
    first = memory(space.id, "Deploys freeze on Fridays")
    again = memory(space.id, "Deploys freeze on Fridays")
    repeat = memory(space.id, "The pager rotates weekly")
    other = memory(space.id, "Postgres 16 runs the billing database")
    twice = [memory(space.id, "Kafka carries the events"), memory(space.id, "Kafka carries the events")]

    outcomes = neo4j_store.writes._write_group(space.id, [
        WriteBatch(space.id, [first]), WriteBatch(space.id, [repeat]),
        WriteBatch(space.id, [again]), WriteBatch(space.id, twice), WriteBatch(space.id, [other])])

    assert outcomes[0] is None and outcomes[4] is None
    assert isinstance(outcomes[1], DuplicateContent)
    assert outcomes[1].existing == {stored.content_hash: stored.id}
    assert isinstance(outcomes[2], DuplicateContent)
    assert outcomes[2].existing == {first.content_hash: first.id}  # the group's earlier batch
    assert outcomes[3] is not None and "same content twice" in str(outcomes[3])
    listed = neo4j_store.reads.list_memories(MemoryFilter(space.id), 10)
    assert sorted(m.content for m in listed) == sorted(
        ["The pager rotates weekly", "Deploys freeze on Fridays",
         "Postgres 16 runs the billing database"])
    # The cache took the group's rows directly and ranks them like a store read would.
    hits = neo4j_store.search.vector_search(MemoryFilter(space.id), EMBED.embed([other.content])[0], 3)
    assert hits[0].memory.id == other.id


def test_concurrent_writers_each_store_once_and_repeats_are_duplicates(neo4j_store: Neo4jStore) -> None:
    space = b.space("group-race")
    neo4j_store.directory.create_space(space)
    contents = [f"fact {i % 8} of the rollout" for i in range(32)]  # each said four times
    duplicates: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(len(contents))

    def writer(content: str) -> None:
        start.wait(10)
        try:
            neo4j_store.writes.write(WriteBatch(space.id, [memory(space.id, content)]))
        except DuplicateContent:
            duplicates.append(content)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(c,)) for c in contents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    listed = neo4j_store.reads.list_memories(MemoryFilter(space.id), 50)
    assert sorted(m.content for m in listed) == sorted(set(contents))
    assert len(duplicates) == len(contents) - 8


def test_two_servers_adding_the_same_contents_store_each_once(neo4j_uri: str,
                                                               neo4j_store: Neo4jStore) -> None:
    """Two stores on one database (two server processes) share no group commit: only the
    space's lock, taken before the statement checks the contents, keeps repeats out."""
    space = b.space("group-two-servers")
    neo4j_store.directory.create_space(space)
    other = Neo4jStore(neo4j_uri, **PATIENT)
    # each said eight times, four times through each store
    contents = [f"step {i % 6} of the migration" for i in range(48)]
    duplicates: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(len(contents))

    def writer(n: int, content: str) -> None:
        start.wait(10)
        try:
            (neo4j_store, other)[n // 6 % 2].writes.write(WriteBatch(space.id, [memory(space.id, content)]))
        except DuplicateContent:
            duplicates.append(content)
        except BaseException as exc:
            errors.append(exc)

    try:
        threads = [threading.Thread(target=writer, args=(n, c)) for n, c in enumerate(contents)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        other.close()
    assert errors == []
    listed = neo4j_store.reads.list_memories(MemoryFilter(space.id), 50)
    assert sorted(m.content for m in listed) == sorted(set(contents))
    assert len(duplicates) == len(contents) - 6
