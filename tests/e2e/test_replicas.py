"""Three replicas on the one Neo4j behind a round-robin proxy: a write through one replica is
found by the next search through another, warm or cold there (docs/scaling.md).

The proxy is a few lines of asyncio: each client connection goes to the next replica in turn,
and the client opens a connection per request, so consecutive requests land on different
replicas. The workload is random (seeded, printed): adds of unique facts to random spaces, each
followed by a search for it through the proxy, with searches of other spaces between that warm
some replicas' caches and leave others cold; the budget holds about two of the spaces."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.server import bound_socket, running_server
from tests.support.stores import PATIENT_SETTINGS

pytestmark = pytest.mark.neo4j

SPACES = 4
OPS = 60


@contextlib.contextmanager
def round_robin(backends: list[int]) -> Iterator[str]:
    """A TCP proxy on 127.0.0.1 sending each new connection to the next backend port."""
    loop = asyncio.new_event_loop()
    turn = iter(range(10**9))
    sock = bound_socket()

    writers: list[asyncio.StreamWriter] = []

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
        finally:
            writer.close()

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        port = backends[next(turn) % len(backends)]
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        writers.append(up_writer)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def shutdown() -> None:
        # Every socket the proxy opened is closed and awaited before its loop closes: a transport
        # left to the garbage collector warns (ResourceWarning) in whichever test runs next.
        server.close()
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        for writer in writers:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        await server.wait_closed()

    server = loop.run_until_complete(asyncio.start_server(client, sock=sock))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _replica(uri: str, data_dir: Path, embedder: LocalEmbedder) -> Container:
    settings = Settings(_env_file=None, store="neo4j", **PATIENT_SETTINGS, neo4j_uri=uri,  # type: ignore[call-arg]
                        data_dir=data_dir, cache_mb=1)
    return build(settings, embedder=embedder)


def test_a_write_through_one_replica_is_found_through_the_next(
        neo4j_uri: str, embedder: LocalEmbedder, tmp_path: Path) -> None:
    replicas = [_replica(neo4j_uri, tmp_path / f"r{n}", embedder) for n in range(3)]
    run = uuid.uuid4().hex[:8]
    slugs = [f"replicas-{run}-{n}" for n in range(SPACES)]
    for slug in slugs:
        replicas[0].admin.create_space(slug)
    key = replicas[0].admin.create_key("replicas", {s: Access.READWRITE for s in slugs}).raw
    seed = random.randrange(10**6)
    print(f"seed {seed}")
    rng = random.Random(seed)
    paths: Counter[str] = Counter()
    stale: list[str] = []
    with contextlib.ExitStack() as stack:
        ports = [int(stack.enter_context(running_server(app)).rsplit(":", 1)[1])
                 for app in replicas]
        url = stack.enter_context(round_robin(ports))
        # a fresh connection per request: the proxy hands each to the next replica
        http = stack.enter_context(httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60,
            limits=httpx.Limits(max_keepalive_connections=0)))
        for n in range(OPS):
            slug = rng.choice(slugs)
            if rng.random() < 0.5:  # a search elsewhere: warms one replica, evicts another
                other = rng.choice(slugs)
                found = http.post("/v1/search", json={"query": "release notes", "space": other})
                paths[found.json()["searchPath"]] += 1
                continue
            fact = f"Fact {n}-{run}: the {rng.choice(['billing', 'search', 'mobile'])} " \
                   f"release {rng.randrange(1000)} ships on day {rng.randrange(365)}"
            added = http.post("/v1/memories", json={"content": fact, "space": slug})
            assert added.status_code == 201, added.text
            found = http.post("/v1/search", json={"query": fact, "space": slug})
            assert found.status_code == 200, found.text
            body = found.json()
            paths[body["searchPath"]] += 1
            if fact not in [r["content"] for r in body["results"]]:
                stale.append(f"{fact} ({body['searchPath']})")
        for app in replicas:
            app.search._cache.idle(30)  # type: ignore[union-attr]
    for app in replicas:
        app.close()
    print(f"searches by path: {dict(paths)}; stale reads: {len(stale)}")
    assert paths["warm"] and paths["cold"], paths  # both paths were exercised
    assert stale == []
