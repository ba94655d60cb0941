"""The change feed read while writers commit: a reader paging with its cursor during the writes,
then to the end, sees every change exactly once and in stamp order, on every store."""

from __future__ import annotations

import threading

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import MemoryFilter
from memspace.domain.ports import Change, ChangeAfter, WriteBatch
from tests.support import builders as b
from tests.support.fakes import HashEmbedder

WRITERS, EACH, PAGE = 4, 20, 7


def test_a_reader_paging_during_concurrent_writes_misses_and_repeats_nothing(store: GraphStore) -> None:
    space = b.space("feed")
    store.directory.create_space(space)
    embed = HashEmbedder()
    written: list[str] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(EACH):
                text = f"writer {n} fact {i}"
                memory = b.memory(space.id, text, embed.embed([text])[0])
                store.writes.write(WriteBatch(space.id, [memory]))
                with lock:
                    written.append(memory.id)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    seen: list[Change] = []
    after: ChangeAfter | None = None
    where = MemoryFilter(space.id)

    def read_page() -> bool:
        nonlocal after
        page = store.reads.list_changes(where, PAGE, after)
        if page:
            seen.extend(page)
            after = ChangeAfter(page[-1].stamp, page[-1].memory.id)
        return bool(page)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):  # read while the writes commit
        read_page()
    for thread in threads:
        thread.join()
    while read_page():  # then to the end
        pass
    assert errors == []
    ids = [c.memory.id for c in seen]
    assert len(ids) == len(set(ids)) == WRITERS * EACH
    assert set(ids) == set(written)
    assert [c.stamp for c in seen] == sorted(c.stamp for c in seen)
