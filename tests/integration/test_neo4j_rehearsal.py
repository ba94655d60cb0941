"""A server on Neo4j runs a search's reads before it says it is ready, so that the JVM has
compiled them (services/search/rehearsal.py); one on SQLite has nothing to rehearse."""

from __future__ import annotations

import asyncio
import threading
import uuid
from pathlib import Path

import httpx

from memspace.domain.models import Access, MemoryFilter
from memspace.services.search.rehearsal import ROUND, Rehearsal
from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.stores import PATIENT_SETTINGS


def test_a_search_on_neo4j_is_rehearsed_and_one_on_sqlite_is_not(neo4j_uri: str,
                                                                  tmp_path: Path) -> None:
    app = build(Settings(_env_file=None, store="neo4j", neo4j_uri=neo4j_uri,  # type: ignore[call-arg]
                         **PATIENT_SETTINGS), embedder=HashEmbedder())
    try:
        slug = f"rehearsed-{uuid.uuid4().hex[:12]}"
        space = app.admin.create_space(slug)
        who = app.access.authenticate(app.admin.create_key(slug, {slug: Access.READWRITE}).raw)
        for fact in ("the pager rotates weekly", "billing runs on Postgres 16",
                     "the deploy freeze starts Friday"):
            app.memories.add(who, fact, space=slug)
        before = app.store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 10)
        done = app.search.rehearse(30.0)
        assert done is not None and done.rounds >= 1 and done.searches >= ROUND
        assert app.store.reads.list_memories(
            MemoryFilter(space.id, include_inactive=True), 10) == before
    finally:
        app.close()
    lite = build(Settings(_env_file=None, data_dir=tmp_path),  # type: ignore[call-arg]
                 embedder=HashEmbedder())
    try:
        assert lite.search.rehearse(30.0) is None
    finally:
        lite.close()


async def test_a_server_on_neo4j_is_ready_once_its_rehearsal_is_over(neo4j_uri: str) -> None:
    app = build(Settings(_env_file=None, store="neo4j", neo4j_uri=neo4j_uri,  # type: ignore[call-arg]
                         warm_store_seconds=30.0, **PATIENT_SETTINGS),
                embedder=HashEmbedder())
    ran, gate = [], threading.Event()
    rehearse = app.search.rehearse

    def gated(seconds: float) -> Rehearsal | None:  # runs once the test has asked
        assert gate.wait(timeout=60), "the test never opened the gate"
        ran.append(rehearse(seconds))
        return ran[-1]

    app.search.rehearse = gated  # type: ignore[method-assign]
    api = create_app(app)
    try:
        async with api.router.lifespan_context(api), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=api), base_url="http://127.0.0.1") as client:
            starting = await client.get("/readyz")
            gate.set()
            assert await asyncio.to_thread(api.state.warmed.wait, 90)
            ready = await client.get("/readyz")
        assert starting.status_code == 503 and "rehearsing" in starting.json()["message"]
        assert ready.status_code == 200 and len(ran) == 1 and ran[0].searches >= ROUND
    finally:
        gate.set()
        app.close()
