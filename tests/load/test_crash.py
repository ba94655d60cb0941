"""Kill the server (SIGKILL) while agents write, start it again: every write it acknowledged is
there exactly once, and retrying the unacknowledged ones leaves no copy either. On each store."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx2
import pytest

from memspace.domain.models import Access
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder

CYCLES = 2
CLIENTS = 8
ACKS_BEFORE_KILL = 30


class Server:
    def __init__(self, data_dir: Path, neo4j_uri: str | None) -> None:
        self.args = [sys.executable, "-m", "tests.support.fast_server", str(data_dir),
                     *([neo4j_uri] if neo4j_uri else [])]
        self.log = data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        """Start it; it binds a free port itself (each start another one) and names it."""
        with self.log.open("w") as out:
            self.process = subprocess.Popen(self.args, cwd=Path(__file__).parents[2], stdout=out)
        deadline = time.monotonic() + 120  # turns a hang into a failure; not a timing assert
        while not (named := re.search(r"^listening on (\d+)$", self.log.read_text(), re.M)):
            assert self.process.poll() is None, "the server exited while starting"
            assert time.monotonic() < deadline, "the server named no port"
            time.sleep(0.1)
        self.url = f"http://127.0.0.1:{named.group(1)}"
        while True:
            assert self.process.poll() is None, "the server exited while starting"
            try:
                if httpx2.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()


async def _write_until_killed(server: Server, key: str, prefix: str) -> tuple[set[str], set[str]]:
    """Adds from CLIENTS agents until the server dies; (acknowledged, sent but unanswered)."""
    acked: set[str] = set()
    unanswered: set[str] = set()
    killed = asyncio.Event()

    async def agent(number: int) -> None:
        async with httpx2.AsyncClient(base_url=server.url, timeout=30,
                                      headers={"Authorization": f"Bearer {key}"}) as http:
            for i in range(10_000):
                text = f"{prefix} agent {number} fact {i}"
                try:
                    answer = await http.post("/v1/memories", json={"content": text})
                except httpx2.HTTPError:
                    unanswered.add(text)
                    return
                assert answer.status_code == 201, answer.text
                acked.add(text)
                if len(acked) >= ACKS_BEFORE_KILL and not killed.is_set():
                    killed.set()
                    server.kill()

    await asyncio.gather(*(agent(n) for n in range(CLIENTS)))
    return acked, unanswered


async def _everything(server: Server, key: str) -> Counter[str]:
    seen: Counter[str] = Counter()
    async with httpx2.AsyncClient(base_url=server.url, timeout=30,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        cursor = None
        while True:
            params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
            page = (await http.get("/v1/memories", params=params)).json()
            seen.update(m["content"] for m in page["memories"])
            cursor = page["nextCursor"]
            if not cursor:
                return seen


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
async def test_a_killed_server_keeps_every_acknowledged_write_exactly_once(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path,
) -> None:
    uri = request.getfixturevalue("neo4j_uri") if kind == "neo4j" else None
    extra = {"store": "neo4j", "neo4j_uri": uri} if uri else {}
    setup = build(Settings(_env_file=None, data_dir=tmp_path, **extra),  # type: ignore[arg-type]
                  embedder=HashEmbedder())
    slug = f"crash-{uuid.uuid4().hex[:8]}"
    setup.admin.create_space(slug)
    key = setup.admin.create_key("writer", {slug: Access.READWRITE}).raw
    setup.close()
    server = Server(tmp_path, uri)
    acknowledged: set[str] = set()
    try:
        for cycle in range(CYCLES):
            server.start()
            acked, unanswered = await _write_until_killed(server, key, f"cycle {cycle}")
            acknowledged |= acked
            server.start()
            seen = await _everything(server, key)
            assert acknowledged <= set(seen), "an acknowledged write was lost"
            assert max(seen.values()) == 1, "a write was stored twice"
            # An agent retries what got no answer: stored once, whichever side of the kill.
            async with httpx2.AsyncClient(base_url=server.url, timeout=30, headers={
                    "Authorization": f"Bearer {key}"}) as http:
                for text in unanswered:
                    answer = await http.post("/v1/memories", json={"content": text})
                    assert answer.json()["status"] in ("created", "duplicate")
            acknowledged |= unanswered
            seen = await _everything(server, key)
            assert set(seen) == acknowledged and max(seen.values()) == 1
            server.kill()
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()
