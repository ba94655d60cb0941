"""/readyz on the embedded store: ready while SQLite answers, 503 with the reason when it does
not (the Neo4j outage is tested in tests/integration/test_neo4j_outage.py)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import httpx
import pytest

from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock


async def test_readyz_answers_503_with_the_reason_when_sqlite_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    store = SqliteStore(":memory:")
    app = build(Settings(_env_file=None), store=store, embedder=HashEmbedder(),  # type: ignore[call-arg]
                clock=StepClock(), blobs=MemoryBlobStore())
    transport = httpx.ASGITransport(app=create_app(app, warm_up=False))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            ready = await client.get("/readyz")
            assert (ready.status_code, ready.json()) == (200, {"status": "ready", "store": "sqlite"})

            def broken_disk() -> sqlite3.Connection:
                raise sqlite3.OperationalError("disk I/O error")

            monkeypatch.setattr(store.kit.db, "conn", broken_disk)
            down = await client.get("/readyz")
        assert (down.status_code, down.json()) == (503, {
            "status": "unavailable", "store": "sqlite",
            "message": "the SQLite store does not answer: disk I/O error"})
    finally:
        monkeypatch.undo()
        app.close()


class GatedEmbedder(HashEmbedder):
    """Its warm-up (the model load) finishes only when the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def warm_up(self) -> None:
        assert self.gate.wait(timeout=30), "the test never opened the gate"


async def test_readyz_says_starting_until_the_model_and_caches_are_loaded() -> None:
    embedder = GatedEmbedder()
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=embedder, clock=StepClock(), blobs=MemoryBlobStore())
    api = create_app(app)
    transport = httpx.ASGITransport(app=api)
    try:
        async with api.router.lifespan_context(api), httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1") as client:
            starting = await client.get("/readyz")
            assert (starting.status_code, starting.json()["status"]) == (503, "starting")
            assert "embedding model" in starting.json()["message"]
            embedder.gate.set()
            await asyncio.to_thread(api.state.warmed.wait, 30)
            ready = await client.get("/readyz")
            assert (ready.status_code, ready.json()) == (200, {"status": "ready", "store": "sqlite"})
    finally:
        embedder.gate.set()
        app.close()


async def test_a_failing_warm_up_does_not_hold_readiness_for_ever() -> None:
    class BrokenEmbedder(HashEmbedder):
        def warm_up(self) -> None:
            raise RuntimeError("weights unreadable")

    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=BrokenEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    api = create_app(app)
    try:
        async with api.router.lifespan_context(api), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=api), base_url="http://127.0.0.1") as client:
            assert await asyncio.to_thread(api.state.warmed.wait, 30)
            assert (await client.get("/readyz")).status_code == 200
    finally:
        app.close()
