"""Neo4j going away and coming back, on a server of the test's own (tools/neo4j-local on a free
port and a temporary data directory), so the shared test server is never disturbed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from memspace.bootstrap import Container, build
from memspace.config import Settings
from memspace.domain.errors import Unavailable
from memspace.domain.models import Access, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.stores.neo4j import Neo4jStore
from tests.conftest import skip_or_fail
from tests.support import builders as b
from tests.support.fakes import HashEmbedder
from tests.support.server import data, error_text, free_port, mcp_client, running_server

pytestmark = [pytest.mark.neo4j, pytest.mark.e2e]

LOCAL = Path(__file__).resolve().parents[2] / "tools" / "neo4j-local"


@dataclass
class OwnNeo4j:
    uri: str
    env: dict[str, str]
    pid_file: Path

    def start(self) -> None:
        subprocess.run([str(LOCAL / "start.sh")], env=self.env, check=True, timeout=600,
                       capture_output=True)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as when a machine or container dies. Returns once the
        process is gone (its sockets closed), not after a guess of how long that takes."""
        pid = int(self.pid_file.read_text())
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while _running(pid):
            assert time.monotonic() < deadline, f"Neo4j (pid {pid}) outlived SIGKILL by 60 s"
            time.sleep(0.01)

    def stop(self) -> None:
        subprocess.run([str(LOCAL / "stop.sh")], env=self.env, check=False, timeout=120,
                       capture_output=True)


def _running(pid: int) -> bool:
    """Is the process there and not a zombie (the server is not our child: nobody here reaps it)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.fixture
def own_neo4j(tmp_path: Path) -> Iterator[OwnNeo4j]:
    if not (shutil.which("java") and shutil.which("mvn")):
        skip_or_fail("the outage tests need java and mvn for a Neo4j of their own")
    # The test kills this Neo4j and starts it again on the same port, so the port is chosen
    # here, not by the server; a port another process took between the choice and the first
    # start is refused by start.sh ("already in use"), and another one is tried.
    for attempt in range(3):
        port = free_port()
        env = {**os.environ, "NEO4J_LOCAL_PORT": str(port),
               "NEO4J_LOCAL_DATA_DIR": str(tmp_path / "data"),
               "NEO4J_LOCAL_PID_FILE": str(tmp_path / "neo4j.pid"),
               "NEO4J_LOCAL_LOG_FILE": str(tmp_path / "neo4j.log")}
        server = OwnNeo4j(f"bolt://127.0.0.1:{port}", env, tmp_path / "neo4j.pid")
        try:
            server.start()
            break
        except subprocess.CalledProcessError as exc:
            if b"already in use" not in exc.stderr + exc.stdout or attempt == 2:
                raise
    yield server
    server.stop()


async def test_an_outage_is_reported_in_seconds_and_recovered_without_restart(
    own_neo4j: OwnNeo4j,
) -> None:
    settings = Settings(_env_file=None, store="neo4j", neo4j_uri=own_neo4j.uri,  # type: ignore[call-arg]
                        neo4j_retry_window_s=3)
    app = build(settings, embedder=HashEmbedder())
    try:
        await _outage_and_recovery(app, own_neo4j)
    finally:
        app.close()


async def _outage_and_recovery(app: Container, own_neo4j: OwnNeo4j) -> None:
    app.admin.create_space("ops")
    key = app.admin.create_key("agent", {"ops": Access.READWRITE}).raw
    with running_server(app) as url:
        async with mcp_client(url, key) as client:
            data(await client.call_tool("add_memory", {"content": "The pager rotates weekly"}))
        own_neo4j.kill()
        async with httpx2.AsyncClient(base_url=url) as http:
            started = time.monotonic()
            ready = await http.get("/readyz", timeout=60)
            print(f"\n/readyz answered {ready.status_code} {time.monotonic() - started:.1f} s "
                  "after the kill")
        assert ready.status_code == 503
        assert own_neo4j.uri in ready.json()["message"] and ready.json()["store"] == "neo4j"
        async with mcp_client(url, key) as client:
            started = time.monotonic()
            failed = error_text(await client.call_tool("search_memory", {"query": "pager"}))
            print(f"search_memory failed {time.monotonic() - started:.1f} s into the outage: "
                  f"{failed}")
            assert "unavailable: Neo4j at" in failed and own_neo4j.uri in failed
            own_neo4j.start()
            found = data(await client.call_tool("search_memory", {"query": "pager"}))
            assert [r["content"] for r in found["results"]] == ["The pager rotates weekly"]
        async with httpx2.AsyncClient(base_url=url) as http:
            assert (await http.get("/readyz")).status_code == 200


def test_a_write_cut_by_the_outage_leaves_nothing_half_written(own_neo4j: OwnNeo4j) -> None:
    store = Neo4jStore(own_neo4j.uri, retry_window_s=1)
    try:
        _cut_write(store, own_neo4j)
    finally:
        store.close()


def _cut_write(store: Neo4jStore, own_neo4j: OwnNeo4j) -> None:
    space = b.space("cut")
    store.directory.create_space(space)
    embed = HashEmbedder()
    memories = [b.memory(space.id, f"bulk fact {i}", embed.embed([f"bulk fact {i}"])[0])
                for i in range(20_000)]
    relations = [b.relation(memories[i + 1], memories[i]) for i in range(0, 20_000, 2)]
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            store.writes.write(WriteBatch(space.id, memories, relations))
            outcome.append(None)
        except BaseException as exc:  # the outcome is what the test inspects
            outcome.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    _wait_for_a_running_write(own_neo4j.uri, writer)  # a fixed sleep tests nothing on a slow machine
    own_neo4j.kill()
    writer.join(timeout=120)
    assert outcome and isinstance(outcome[0], Unavailable), "the write finished before the kill"
    own_neo4j.start()
    stored = store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 25_000)
    stats = store.directory.space_stats(space.id)
    assert (len(stored), stats.relations) == (0, 0)
    # The space still takes writes: nothing was left locked or half-numbered.
    store.writes.write(WriteBatch(space.id, memories[:2], [relations[0]]))
    assert store.directory.space_stats(space.id).relations == 1


def _wait_for_a_running_write(uri: str, writer: threading.Thread) -> None:
    """Until the server lists a transaction other than this query (the bulk write is under way);
    the bound only turns a write that never starts into a failure."""
    from neo4j import GraphDatabase

    deadline = time.monotonic() + 120
    with GraphDatabase.driver(uri, auth=None) as driver:
        while True:
            records, _, _ = driver.execute_query(
                "SHOW TRANSACTIONS YIELD currentQuery WHERE NOT currentQuery STARTS WITH 'SHOW' "
                "RETURN count(*) AS running")
            if records[0]["running"] > 0:
                return
            assert writer.is_alive(), "the write finished before it was seen running"
            assert time.monotonic() < deadline, "the bulk write never showed as a running transaction"
            time.sleep(0.01)
