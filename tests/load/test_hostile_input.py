"""Hostile and edge input over real HTTP, on each store: a PDF built to be slow, a CSV with a
quote left open, invisible content, times at the edge of the calendar."""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from memspace.domain.models import Access
from memspace.services.shared.paging import fingerprint
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support import corpus
from tests.support.fakes import HashEmbedder
from tests.support.server import error_text, mcp_client, running_server

EDGE = "0001-01-01T00:00:00+14:00"  # in UTC: 31 December of year 0, which Python cannot hold


@dataclass
class Served:
    url: str
    app: Container
    slug: str
    key: str


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)], scope="module")
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Served]:
    data_dir: Path = tmp_path_factory.mktemp("hostile")
    extra: dict[str, Any] = {}
    if request.param == "neo4j":
        extra = {"store": "neo4j", "neo4j_uri": request.getfixturevalue("neo4j_uri")}
    # A short parse budget: the hostile PDF needs minutes (~4.7 s a page here), a real one far
    # under a second.
    settings = Settings(_env_file=None, data_dir=data_dir, max_parse_seconds=5,  # type: ignore[call-arg]
                        **extra)
    app = build(settings, embedder=HashEmbedder())
    slug = f"hostile-{uuid.uuid4().hex[:8]}"
    app.admin.create_space(slug)
    key = app.admin.create_key("prober", {slug: Access.READWRITE}).raw
    with running_server(app) as url:
        yield Served(url, app, slug, key)
    app.close()


@pytest.fixture
async def client(served: Served) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=served.url, timeout=60,
                                  headers={"Authorization": f"Bearer {served.key}"}) as http:
        yield http


async def settled(client: httpx2.AsyncClient, document_id: str, bound_s: float = 180) -> Any:
    """Poll until done or failed; the bound only turns a hang into a failure."""
    deadline = time.monotonic() + bound_s
    while True:
        document = (await client.get(f"/v1/documents/{document_id}")).json()
        if document["status"] in ("done", "failed"):
            return document
        assert time.monotonic() < deadline, f"still {document['status']} after {bound_s} s"
        await asyncio.sleep(0.1)


async def test_a_pdf_built_to_be_slow_is_accepted_at_once_and_fails_naming_the_budget(
    client: httpx2.AsyncClient,
) -> None:
    accepted = await client.post("/v1/documents",
                                 files={"file": ("slow.pdf", corpus.hostile_pdf(pages=40))})
    assert accepted.status_code == 202 and accepted.json()["status"] == "queued"
    # The server answers other requests while the worker's child process parses.
    assert (await client.post("/v1/search", json={"query": "anything"})).status_code == 200
    document = await settled(client, accepted.json()["id"])
    assert document["status"] == "failed"
    assert "longer than its 5 s budget (MEMSPACE_MAX_PARSE_SECONDS)" in document["error"]
    good = await client.post("/v1/documents", files={"file": ("prices.pdf", corpus.two_page_pdf())})
    assert (await settled(client, good.json()["id"]))["status"] == "done"


async def test_a_csv_with_a_quote_left_open_fails_instead_of_merging_rows(
    client: httpx2.AsyncClient,
) -> None:
    accepted = await client.post("/v1/documents", files={
        "file": ("open.csv", b'a,b\n1,"unterminated\n2,3\n')})
    assert accepted.status_code == 202
    document = await settled(client, accepted.json()["id"])
    assert document["status"] == "failed" and "a quote is probably left open" in document["error"]
    assert document["factCount"] == 0


@pytest.mark.parametrize("content", ["\u200b\u200b\u200b", "\u00ad\ufeff \u2060", "\x00\x01 "])
async def test_invisible_content_is_refused_like_empty_content(
    served: Served, client: httpx2.AsyncClient, content: str,
) -> None:
    refused = await client.post("/v1/memories", json={"content": content})
    assert refused.status_code == 422 and "invisible characters" in refused.json()["message"]
    async with mcp_client(served.url, served.key) as mcp:
        said = error_text(await mcp.call_tool("add_memory", {"content": content}))
        assert "empty" in said
    listed = (await client.get("/v1/memories")).json()["memories"]
    assert all(m["content"].strip("\u200b\u00ad\ufeff\u2060\x00\x01 ") for m in listed)


async def test_times_at_the_edge_of_the_calendar_are_refused_with_the_reason(
    served: Served, client: httpx2.AsyncClient,
) -> None:
    async with mcp_client(served.url, served.key) as mcp:
        said = error_text(await mcp.call_tool("listMemories", {"since": EDGE}))
        assert "out of range" in said and "UTC" in said
        said = error_text(await mcp.call_tool("listMemories", {"since": "9999-12-31T23:00:00-14:00"}))
        assert "out of range" in said
    space = served.app.store.directory.get_space_by_slug(served.slug)
    assert space is not None
    query = fingerprint("memories", space.id, category=None, inactive=False)
    cursor = base64.urlsafe_b64encode(json.dumps({"q": query, "t": EDGE, "i": "x"}).encode())
    answer = await client.get("/v1/memories", params={"cursor": cursor.decode().rstrip("=")})
    assert answer.status_code == 422 and "cursor is damaged" in answer.json()["message"]
    async with mcp_client(served.url, served.key) as mcp:
        for bad in ("yesterday", "cZZZ", "c" + "A" * 40):
            assert "ISO-8601" in error_text(await mcp.call_tool("listMemories", {"since": bad}))
