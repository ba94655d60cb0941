"""/readyz on the embedded store: ready while SQLite answers, 503 with the reason when it does
not (the Neo4j outage is tested in tests/integration/test_neo4j_outage.py)."""

from __future__ import annotations

import sqlite3

import httpx
import pytest

from memspace.api.app import create_app
from memspace.bootstrap import build
from memspace.config import Settings
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

            monkeypatch.setattr(store, "_conn", broken_disk)
            down = await client.get("/readyz")
        assert (down.status_code, down.json()) == (503, {
            "status": "unavailable", "store": "sqlite",
            "message": "the SQLite store does not answer: disk I/O error"})
    finally:
        monkeypatch.undo()
        app.close()
