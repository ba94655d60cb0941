"""A cold vector-cache load on Neo4j (stores/neo4j/search.py vectors_after): read in ranges of
sequence numbers, every row once, its vector as the float32 bytes written beside the array.
And what a connect does for a store an older version wrote: turns get their `follows`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from memspace.domain.models import Memory
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore, memory_backfill
from memspace.stores.neo4j import search as neo4j_search
from memspace.stores.neo4j.cypher import memories as memory_cypher
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

pytestmark = pytest.mark.neo4j
EMBED = HashEmbedder()


def test_rows_come_back_once_each_across_ranges_with_their_vectors(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_search, "SEQS_PER_READ", 3)
    space = b.space("cache-load")
    neo4j_store.directory.create_space(space)
    texts = [f"fact number {n}" for n in range(7)]
    memories = [b.memory(space.id, t, None if n == 4 else EMBED.embed([t])[0])
                for n, t in enumerate(texts)]
    neo4j_store.writes.write(WriteBatch(space.id, memories[:5]))
    neo4j_store.writes.write(WriteBatch(space.id, memories[5:]))

    rows = neo4j_store.search.vectors_after(space.id, 0)
    assert [seq for seq, *_ in rows] == sorted({seq for seq, *_ in rows})
    assert len(rows) == 7
    for (_, vector, _, terms, content), memory in zip(rows, memories, strict=True):
        assert terms  # the index terms and the content (keyword search) travel with the vector
        assert content == memory.content
        if memory.embedding is None:
            assert vector is None  # a memory without a vector keeps its place
        else:
            assert isinstance(vector, bytes | bytearray)
            assert np.frombuffer(vector, dtype="<f4").tolist() == pytest.approx(memory.embedding)
    after = neo4j_store.search.vectors_after(space.id, rows[3][0])
    assert [seq for seq, *_ in after] == [r[0] for r in rows[4:]]


def test_turns_stored_before_follows_existed_get_the_turn_they_continue(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    space = b.space("legacy-turns")
    neo4j_store.directory.create_space(space)
    long_turn = "x" * 500

    def turn(content: str, writer: str = "agent", context: str | None = None) -> Memory:
        return replace(b.memory(space.id, content, EMBED.embed([content])[0]), created_by=writer,
                       speaker="Ann", context=context)

    rows = {
        "a": turn("Ann: hello"),
        "b": turn("Bo: hi Ann", context="Ann: hello"),
        "other": turn("Cy: elsewhere", writer="another"),
        "c": turn(long_turn, context="Bo: hi Ann"),
        "d": turn("Ann: so long", context="…" + long_turn[-400:]),
        "e": turn("Bo: what?", context="something else"),  # its writer's last memory is d
    }
    for memory in rows.values():  # one write each, in the order they were saved
        neo4j_store.writes.write(WriteBatch(space.id, [memory]))
    # As an older version left them: no links, and (for the check) no `follows` key yet.
    neo4j_store.kit.db.write(lambda tx: tx.run(
        "MATCH (m:Memory {spaceId: $space}) REMOVE m.follows", space=space.id).consume())
    monkeypatch.setattr(memory_cypher, "HAS_FOLLOWS_KEY", "RETURN 0 AS n")
    assert memory_backfill.backfill_follows(neo4j_store.kit.db) >= 3
    monkeypatch.undo()
    ids = {name: m.id for name, m in rows.items()}
    follows = {}
    for name in rows:
        stored = neo4j_store.reads.get_memory(space.id, ids[name])
        assert stored is not None
        follows[name] = stored.follows
    assert follows == {"a": None, "b": ids["a"], "other": None, "c": ids["b"], "d": ids["c"],
                       "e": None}
    # the key is known now: later starts do nothing
    assert memory_backfill.backfill_follows(neo4j_store.kit.db) == 0
