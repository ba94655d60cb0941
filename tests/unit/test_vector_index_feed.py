"""The feed that puts written memories into Neo4j's vector index (stores/neo4j/vector_index.py),
on a scripted connection: batches, retries while the server is away, and what a close leaves."""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from memspace.domain.errors import Unavailable
from memspace.stores.neo4j import vector_index
from memspace.stores.neo4j.vector_index import IndexFeed


class _Db:
    """write_one() records the ids of its rows unless told to fail, then sets `wrote`; read()
    answers the backfill's query."""

    def __init__(self, failures: int = 0, unindexed: list[dict[str, Any]] | None = None) -> None:
        self.failures = failures
        self.unindexed = unindexed or []
        self.written: list[list[str]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.wrote = threading.Event()

    def write_one(self, query: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.gate.wait(10)
        if self.failures:
            self.failures -= 1
            raise Unavailable("Neo4j at bolt://x is not answering")
        self.written.append([row["id"] for row in rows])
        self.wrote.set()
        return []

    def read(self, query: str, limit: int) -> list[dict[str, Any]]:
        done = {i for ids in self.written for i in ids}
        return [row for row in self.unindexed if row["id"] not in done][:limit]


def test_what_writes_meanwhile_goes_in_one_transaction_in_id_order() -> None:
    db = _Db()
    db.gate.clear()  # the first transaction waits, so the next adds queue behind it
    feed = IndexFeed(db, backfill=False)  # type: ignore[arg-type]
    feed.add([("m1", [1.0])])
    feed.add([("m3", [1.0]), ("m2", [0.5]), ("no-vector", None)])
    db.gate.set()
    assert feed.flush(10)
    assert [i for ids in db.written for i in ids] == ["m1", "m2", "m3"]
    assert len(db.written) <= 2 and db.written[-1][-1] == "m3"
    feed.close()


def test_a_server_away_delays_the_index_and_loses_nothing(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(vector_index, "RETRY_AFTER_S", 0.01)
    db = _Db(failures=2)
    feed = IndexFeed(db, backfill=False)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING):
        feed.add([("m1", [1.0]), ("m2", [1.0])])
        assert feed.flush(10)
    assert db.written == [["m1", "m2"]]
    assert "vector index update of 2 memories failed: Neo4j at bolt://x" in caplog.text
    feed.close()


def test_a_close_says_what_it_leaves_for_the_next_start(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(vector_index, "RETRY_AFTER_S", 0.01)
    db = _Db(failures=10**6)  # the server never comes back
    feed = IndexFeed(db, backfill=False)  # type: ignore[arg-type]
    feed.add([("m1", [1.0])])
    with caplog.at_level(logging.WARNING):
        feed.close(timeout_s=5)  # does not wait out a server that is away
    assert db.written == []
    assert "1 memories not yet in the vector index; the next start adds them" in caplog.text


def test_the_backfill_indexes_what_a_stop_left_and_a_flush_waits_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_index, "BATCH", 2)
    vector = bytes(4 * 3)  # three float32 zeros
    db = _Db(unindexed=[{"id": f"m{n}", "vector": vector} for n in range(5)])
    feed = IndexFeed(db)  # type: ignore[arg-type]
    assert feed.flush(10)
    assert db.written == [["m0", "m1"], ["m2", "m3"], ["m4"]]
    feed.close()


class _WatchedCondition(threading.Condition):
    """The feed's condition, noting each timed wait its own thread makes (the gather window):
    its length, and whether the wait was over before it began (a flush or a full batch)."""

    def __init__(self) -> None:
        super().__init__()
        self.gathering = threading.Event()
        self.windows: list[tuple[float, bool]] = []

    def wait_for(self, predicate: Any, timeout: float | None = None) -> Any:
        if timeout is not None and threading.current_thread().name == "memspace-vector-index":
            self.windows.append((timeout, bool(predicate())))
            self.gathering.set()
        return super().wait_for(predicate, timeout)


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> list[_WatchedCondition]:
    """The conditions feeds made from here on (the first feed's is [0])."""
    made: list[_WatchedCondition] = []

    def condition() -> _WatchedCondition:
        made.append(_WatchedCondition())
        return made[-1]

    monkeypatch.setattr(vector_index, "threading", SimpleNamespace(
        Condition=condition, Thread=threading.Thread))
    return made


def test_memories_written_apart_within_the_gather_window_share_one_transaction(
        watched: list[_WatchedCondition]) -> None:
    db = _Db()
    feed = IndexFeed(db, backfill=False, gather_s=30)  # type: ignore[arg-type]
    feed.add([("m1", [1.0])])
    # The feed has taken m1 up and waits the window for others (a bounded wait for the feed's
    # thread to get there); without gathering it would have written m1 alone instead.
    assert watched[0].gathering.wait(10), f"no gather window; written: {db.written}"
    assert watched[0].windows == [(30, False)] and db.written == []
    feed.add([("m2", [1.0])])
    feed.add([("m0", [1.0])])
    assert feed.flush(10)  # a flush writes what waits at once, not after the 30 s window
    assert db.written == [["m0", "m1", "m2"]]
    # the flush is over: the next memory waits its window again
    watched[0].gathering.clear()
    feed.add([("m4", [1.0])])
    assert watched[0].gathering.wait(10)
    assert watched[0].windows == [(30, False), (30, False)] and db.written == [["m0", "m1", "m2"]]
    feed.close()


def test_the_window_is_half_a_second_unless_told(watched: list[_WatchedCondition]) -> None:
    feed = IndexFeed(_Db(), backfill=False)  # type: ignore[arg-type]
    feed.add([("m1", [1.0])])
    assert watched[0].gathering.wait(10)
    assert watched[0].windows == [(0.5, False)]
    feed.close()


def test_a_full_batch_is_written_without_waiting_for_the_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_index, "BATCH", 2)
    db = _Db()
    feed = IndexFeed(db, backfill=False, gather_s=30)  # type: ignore[arg-type]
    feed.add([("m1", [1.0]), ("m2", [1.0])])
    assert db.wrote.wait(10)  # written while the 30 s window is still open
    assert db.written == [["m1", "m2"]]
    feed.close()
