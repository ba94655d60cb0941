"""Neo4j going away and coming back, as the server under test sees it: a TCP proxy of the test's
own stands between memspace and the real test Neo4j, on a port the proxy binds once and holds to
the end. Cutting the proxy drops every connection through it and closes each new one at once
(what a client sees of a dead server: its connections closed, new ones refused); restoring it
lets connections through again. Neo4j itself never stops and no port is ever given up and bound
again, so nothing else can take it in between, and the shared test server is not disturbed."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator

import httpx2
import pytest

from memspace.domain.errors import Unavailable
from memspace.domain.models import Access, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.neo4j import Neo4jStore
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.server import data, error_text, mcp_client, running_server

pytestmark = [pytest.mark.neo4j, pytest.mark.e2e]

# The statement that creates a batch's memories (stores/neo4j/cypher/memories.py: CREATE_MEMORIES).
CREATING = "CREATE (m:Memory)"
BULK = 5_000


class CuttableProxy:
    """127.0.0.1:<its own port> forwarded to `upstream` until `cut`, again after `restore`."""

    def __init__(self, upstream: str) -> None:
        host, _, port = upstream.removeprefix("bolt://").rpartition(":")
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.uri = f"bolt://127.0.0.1:{self.listener.getsockname()[1]}"
        self._cut = False
        self._lock = threading.Lock()
        self._open: dict[socket.socket, socket.socket] = {}  # client side -> Neo4j side
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # the listener was closed: the test is over
                return
            with self._lock:
                cut = self._cut
            if cut:
                _drop(client)
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=20)
            except OSError:
                _drop(client)
                continue
            server.settimeout(None)
            with self._lock:
                if self._cut:  # cut while this one was being connected
                    _drop(client)
                    _drop(server)
                    continue
                self._open[client] = server
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        _drop(sink)

    def neo4j_side_addresses(self) -> set[str]:
        """The addresses Neo4j sees this proxy's connections come from (`clientAddress`)."""
        with self._lock:
            sides = list(self._open.values())
        addresses: set[str] = set()
        for side in sides:
            with contextlib.suppress(OSError):  # closed since: it is no longer a candidate
                host, port = side.getsockname()[:2]
                addresses.add(f"{host}:{port}")
        return addresses

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            pairs, self._open = list(self._open.items()), {}
        for client, server in pairs:
            _drop(client)
            _drop(server)

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self.cut()
        self.listener.close()


def _drop(sock: socket.socket) -> None:
    """Close `sock` so a thread blocked reading it wakes up (close alone would not wake it)."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


@pytest.fixture
def proxy(neo4j_uri: str) -> Iterator[CuttableProxy]:
    made = CuttableProxy(neo4j_uri)
    yield made
    made.close()


def _unique(word: str) -> str:
    """A name no earlier run left in the shared (possibly kept) test database."""
    return f"{word}-{uuid.uuid4().hex[:12]}"


async def test_an_outage_is_reported_in_seconds_and_recovered_without_restart(
    proxy: CuttableProxy,
) -> None:
    settings = Settings(_env_file=None, store="neo4j", neo4j_uri=proxy.uri,  # type: ignore[call-arg]
                        neo4j_retry_window_s=3)
    app = build(settings, embedder=HashEmbedder())
    try:
        await _outage_and_recovery(app, proxy)
    finally:
        app.close()


async def _outage_and_recovery(app: Container, proxy: CuttableProxy) -> None:
    space = _unique("ops")
    app.admin.create_space(space)
    key = app.admin.create_key(_unique("agent"), {space: Access.READWRITE}).raw
    with running_server(app) as url:
        async with mcp_client(url, key) as client:
            data(await client.call_tool("add_memory", {"content": "The pager rotates weekly"}))
        async with httpx2.AsyncClient(base_url=url) as http:
            assert (await http.get("/readyz", timeout=60)).status_code == 200
            proxy.cut()
            started = time.monotonic()
            ready = await http.get("/readyz", timeout=60)
            print(f"\n/readyz answered {ready.status_code} {time.monotonic() - started:.1f} s "
                  "after the cut")
        assert ready.status_code == 503
        assert proxy.uri in ready.json()["message"] and ready.json()["store"] == "neo4j"
        async with mcp_client(url, key) as client:
            started = time.monotonic()
            failed = error_text(await client.call_tool("search_memory", {"query": "pager"}))
            print(f"search_memory failed {time.monotonic() - started:.1f} s into the outage: "
                  f"{failed}")
            assert "unavailable: Neo4j at" in failed and proxy.uri in failed
            proxy.restore()
            found = data(await client.call_tool("search_memory", {"query": "pager"}))
            assert [r["content"] for r in found["results"]] == ["The pager rotates weekly"]
        async with httpx2.AsyncClient(base_url=url) as http:
            assert (await http.get("/readyz")).status_code == 200


def test_a_write_cut_by_the_outage_leaves_nothing_half_written(
    proxy: CuttableProxy, neo4j_uri: str,
) -> None:
    store = Neo4jStore(proxy.uri, retry_window_s=1)
    try:
        _cut_write(store, proxy, neo4j_uri)
    finally:
        store.close()


def _cut_write(store: Neo4jStore, proxy: CuttableProxy, neo4j_uri: str) -> None:
    space = b.space(_unique("cut"))
    store.directory.create_space(space)
    embed = HashEmbedder()
    memories = [b.memory(space.id, f"bulk fact {i}", embed.embed([f"bulk fact {i}"])[0])
                for i in range(BULK)]
    relations = [b.relation(memories[i + 1], memories[i]) for i in range(0, BULK, 2)]
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            store.writes.write(WriteBatch(space.id, memories, relations))
            outcome.append(None)
        except BaseException as exc:  # the outcome is what the test inspects
            outcome.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    _wait_for_the_memories(neo4j_uri, proxy, writer)  # a fixed sleep tests nothing on a slow machine
    proxy.cut()
    writer.join(timeout=120)
    assert outcome and isinstance(outcome[0], Unavailable), "the write finished before the cut"
    assert proxy.uri in str(outcome[0])
    proxy.restore()
    stored = store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), BULK + 1)
    stats = store.directory.space_stats(space.id)
    assert (len(stored), stats.relations) == (0, 0)
    # The space still takes writes: nothing was left locked or half-numbered.
    store.writes.write(WriteBatch(space.id, memories[:2], [relations[0]]))
    assert store.directory.space_stats(space.id).relations == 1


def _wait_for_the_memories(uri: str, proxy: CuttableProxy, writer: threading.Thread) -> None:
    """Until Neo4j (asked directly, not through the proxy) shows a connection through the proxy
    that ran the statement creating the batch's memories and has gone on to the next statement
    of its transaction: the memories are created, the transaction is open, and a write that
    committed them on their own would leave them behind. Transactions of other clients of the
    shared server come from other addresses. The bound only turns a write that never gets there
    into a failure."""
    from neo4j import GraphDatabase

    created = False
    deadline = time.monotonic() + 300
    with GraphDatabase.driver(uri, auth=None) as driver:
        while True:
            records, _, _ = driver.execute_query(
                "SHOW TRANSACTIONS YIELD clientAddress, currentQuery "
                "RETURN clientAddress, currentQuery")
            ours = proxy.neo4j_side_addresses()
            running = [r["currentQuery"] for r in records if r["clientAddress"] in ours]
            if any(CREATING in query for query in running):
                created = True
            elif created and running:
                return
            assert writer.is_alive(), "the write finished before it was seen past its memories"
            assert time.monotonic() < deadline, "the bulk write was never seen past its memories"
            time.sleep(0.01)
