"""Both stores answer the strict keyword search (the prompt-recall hook's) alike: every word as
typed, no typo variants; the plain keyword search on the same memories still tolerates typos."""

from __future__ import annotations

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import WriteBatch
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

EMBED = HashEmbedder()
CONTENTS = ["add_memory refuses long text", "add_memroy is a typo of it",
            "Pass --space to memspace stdio", "the space is shared"]


def test_exact_keyword_search_takes_every_word_as_typed(store: GraphStore) -> None:
    space = b.space()
    store.directory.create_space(space)
    ids = []
    for content in CONTENTS:
        memory = b.memory(space.id, content, EMBED.embed([content])[0])
        store.writes.write(WriteBatch(space.id, [memory]))
        ids.append(memory.id)
    where = MemoryFilter(space.id)

    def found(keyword: str, exact: bool) -> set[str]:
        return {h.memory.id for h in store.search.keyword_search(where, keyword, 10, exact)}

    assert found("add_memory", exact=True) == {ids[0]}
    assert found("add_memory", exact=False) == {ids[0], ids[1]}
    assert found("space memspace", exact=True) == {ids[2]}
    assert found("space", exact=True) == {ids[2], ids[3]}
    assert found("spaces", exact=True) == set()
