"""A cold vector-cache load on Neo4j (stores/neo4j/search.py vectors_after): read in ranges of
sequence numbers, every row once, its vector as the float32 bytes written beside the array."""

from __future__ import annotations

import numpy as np
import pytest

from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from memspace.stores.neo4j import search as neo4j_search
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

pytestmark = pytest.mark.neo4j
EMBED = HashEmbedder()


def test_rows_come_back_once_each_across_ranges_with_their_vectors(
        neo4j_store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_search, "SEQS_PER_READ", 3)
    space = b.space("cache-load")
    neo4j_store.create_space(space)
    texts = [f"fact number {n}" for n in range(7)]
    memories = [b.memory(space.id, t, None if n == 4 else EMBED.embed([t])[0])
                for n, t in enumerate(texts)]
    neo4j_store.write(WriteBatch(space.id, memories[:5]))
    neo4j_store.write(WriteBatch(space.id, memories[5:]))

    rows = neo4j_store.vectors_after(space.id, 0)
    assert [seq for seq, *_ in rows] == sorted({seq for seq, *_ in rows})
    assert len(rows) == 7
    for (_, vector, _, terms), memory in zip(rows, memories, strict=True):
        assert terms  # the index terms travel with the vector
        if memory.embedding is None:
            assert vector is None  # a memory without a vector keeps its place
        else:
            assert isinstance(vector, bytes | bytearray)
            assert np.frombuffer(vector, dtype="<f4").tolist() == pytest.approx(memory.embedding)
    assert [seq for seq, *_ in neo4j_store.vectors_after(space.id, rows[3][0])] == [r[0] for r in rows[4:]]
