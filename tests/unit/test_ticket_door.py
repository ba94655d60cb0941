"""An upload ticket opens exactly one door, POST /v1/documents: over the ASGI app in-process,
every other route a view could reach with it (MCP, saving a memory, retrying a document,
reading) answers 401 and says to send the API key."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from memspace.domain.models import Access
from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock


@pytest.fixture
async def ticket_client() -> AsyncIterator[httpx.AsyncClient]:
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    who = app.access.authenticate(app.admin.create_key("viewer", {"acme": Access.READWRITE}).raw)
    ticket = app.uploads.issue(who, "acme").token
    transport = httpx.ASGITransport(app=create_app(app, warm_up=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1",
                                 headers={"Authorization": f"Bearer {ticket}"}) as client:
        yield client
    app.close()


async def test_the_ticket_uploads(ticket_client: httpx.AsyncClient) -> None:
    sent = await ticket_client.post("/v1/documents", files={"file": ("notes.txt", b"Lunch is at noon.")})
    assert sent.status_code == 202, sent.text


@pytest.mark.parametrize("method, path, body", [
    ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ("POST", "/v1/memories", {"content": "Smuggled in with a ticket"}),
    ("POST", "/v1/documents/doc-1/retry", None),
    ("GET", "/v1/documents", None),
    ("GET", "/v1/memories", None),
], ids=["mcp", "add-memory", "retry", "list-documents", "list-memories"])
async def test_the_ticket_opens_no_other_door(ticket_client: httpx.AsyncClient, method: str, path: str,
                                              body: dict[str, object] | None) -> None:
    refused = await ticket_client.request(method, path, json=body, headers={
        "Accept": "application/json, text/event-stream"})
    assert refused.status_code == 401
    assert "an upload ticket only authorises POST /v1/documents; send the API key" in refused.text
