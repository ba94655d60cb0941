"""Documents end to end: each file of the corpus uploaded over REST to the real app (uvicorn,
the real embedder, the background worker), read back over MCP — on every store, with and
without a (scripted, OpenAI-compatible) model."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support import corpus
from tests.support.scripted_llm import ScriptedLLM, sentences_as_facts
from tests.support.server import data, error_text, mcp_client, running_server

pytestmark = [pytest.mark.e2e, pytest.mark.model]

# Large enough for the 10 MB-line CSV to reach its parser, small enough to test 413 cheaply.
UPLOAD_LIMIT = 12 * 2**20


@dataclass
class Ingest:
    url: str
    app: Container
    model: bool

    def space(self) -> tuple[str, str]:
        """A fresh space and a read-write key for it."""
        slug = f"docs-{uuid.uuid4().hex[:8]}"
        self.app.admin.create_space(slug)
        return slug, self.app.admin.create_key("uploader", {slug: Access.READWRITE}).raw


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        server.fallback = sentences_as_facts
        yield server


@pytest.fixture(scope="module", params=[
    ("sqlite", False), ("sqlite", True),
    pytest.param(("neo4j", False), marks=pytest.mark.neo4j),
    pytest.param(("neo4j", True), marks=pytest.mark.neo4j),
], ids=["sqlite-flat", "sqlite-model", "neo4j-flat", "neo4j-model"])
def ingest(request: pytest.FixtureRequest, embedder: LocalEmbedder, llm: ScriptedLLM,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ingest]:
    store, model = request.param
    options: dict[str, Any] = {"data_dir": tmp_path_factory.mktemp("ingest"),
                               "max_upload_bytes": UPLOAD_LIMIT}
    if store == "neo4j":
        options |= {"store": "neo4j", "neo4j_uri": request.getfixturevalue("neo4j_uri")}
    if model:
        options |= {"llm_model": "openai/scripted", "llm_api_base": llm.url, "llm_api_key": "test"}
    app = build(Settings(_env_file=None, **options), embedder=embedder)  # type: ignore[call-arg]
    with running_server(app) as url:
        yield Ingest(url, app, model)
    app.close()


@dataclass
class Uploader:
    """A REST client with a read-write key on a fresh space."""

    client: httpx2.AsyncClient
    slug: str
    key: str


@pytest.fixture
async def http(ingest: Ingest) -> AsyncIterator[Uploader]:
    slug, key = ingest.space()
    async with httpx2.AsyncClient(base_url=ingest.url, timeout=60,
                                  headers={"Authorization": f"Bearer {key}"}) as client:
        yield Uploader(client, slug, key)


async def upload(client: httpx2.AsyncClient, name: str, content: bytes, **form: str) -> httpx2.Response:
    return await client.post("/v1/documents", files={"file": (name, content)}, data=form)


async def settled(client: httpx2.AsyncClient, document_id: str, bound_s: float = 120) -> dict[str, Any]:
    """Poll until done or failed; the bound only turns a hang into a failure."""
    deadline = time.monotonic() + bound_s
    while True:
        document: dict[str, Any] = (await client.get(f"/v1/documents/{document_id}")).json()
        if document["status"] in ("done", "failed"):
            return document
        assert time.monotonic() < deadline, f"still {document['status']} after {bound_s} s"
        await asyncio.sleep(0.05)


async def space_state(client: httpx2.AsyncClient) -> tuple[list[str], list[dict[str, Any]]]:
    memories = (await client.get("/v1/memories", params={"includeInactive": True,
                                                         "limit": 100})).json()["memories"]
    documents = (await client.get("/v1/documents", params={"limit": 100})).json()["documents"]
    return sorted(m["id"] for m in memories), documents


# name, bytes, facts (flat, model), origins of the memories
READABLE = [
    ("pricing.pdf", corpus.two_page_pdf(), (1, 3), {"page 2"}),
    ("plans.csv", corpus.CSV_UTF8, (1, 3), {"rows 2-4"}),
    ("regions.csv", corpus.CSV_LATIN1, (1, 2), {"rows 2-3"}),
    ("deploy.md", corpus.MARKDOWN, (2, 10), {"Deploy guide", "Deploy guide > Rollback"}),
]


@pytest.mark.parametrize("name, content, facts, origins", READABLE, ids=[r[0] for r in READABLE])
async def test_a_readable_file_becomes_memories_that_name_their_source(
    ingest: Ingest, http: Uploader, name: str, content: bytes,
    facts: tuple[int, int], origins: set[str],
) -> None:
    client = http.client
    accepted = await upload(client, name, content, title=f"The {name}")
    assert accepted.status_code == 202 and accepted.json()["status"] == "queued"
    document = await settled(client, accepted.json()["id"])
    assert (document["status"], document.get("error")) == ("done", None)
    assert document["factCount"] == facts[ingest.model]
    assert document["chunksDone"] == document["chunksTotal"] == len(origins)
    async with mcp_client(ingest.url, http.key) as mcp:
        listed = data(await mcp.call_tool("listDocuments", {}))
        assert [d["id"] for d in listed["documents"]] == [document["id"]]
        read = data(await mcp.call_tool("getDocument", {"documentId": document["id"], "limit": 1}))
        assert read["content"]["total"] == len(origins) and read["content"]["chunks"][0]["index"] == 0
        hits = data(await mcp.call_tool("listMemories", {"limit": 50}))["memories"]
        assert len(hits) == facts[ingest.model]
        assert {(h["documentId"], h.get("origin")) for h in hits} == {
            (document["id"], origin) for origin in origins}
        found = data(await mcp.call_tool("search_memory", {"query": hits[0]["content"]}))
        assert found["results"][0]["from"].startswith(f"The {name}")  # and where in it
    again = await upload(client, "renamed-" + name, content)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["id"] == document["id"]


UNREADABLE = [
    ("locked.pdf", corpus.encrypted_pdf(), "encrypted PDF: it needs a password to open; upload an "
                                           "unencrypted copy"),
    ("broken.pdf", corpus.truncated_pdf(), "damaged PDF"),
    ("scan.pdf", corpus.scanned_pdf(), "memspace does not do OCR"),
    (corpus.binary_as_csv().name, corpus.binary_as_csv().data, "binary data, not text"),
    (corpus.csv_with_a_long_line().name, corpus.csv_with_a_long_line().data,
     "line 2 of this CSV is 10,485,760 characters long"),
    ("notes.txt", "Café crème".encode("latin-1"), "not UTF-8 text"),
]


@pytest.mark.parametrize("name, content, reason", UNREADABLE, ids=[u[0] for u in UNREADABLE])
async def test_an_unreadable_file_fails_with_what_to_do_and_nothing_else_changes(
    ingest: Ingest, http: Uploader, name: str, content: bytes,
    reason: str,
) -> None:
    client = http.client
    kept = await client.post("/v1/memories", json={"content": "Invoices are due in 30 days"})
    assert kept.status_code == 201
    before_memories, before_documents = await space_state(client)
    accepted = await upload(client, name, content)
    assert accepted.status_code == 202
    document = await settled(client, accepted.json()["id"])
    assert document["status"] == "failed" and reason in document["error"]
    after_memories, after_documents = await space_state(client)
    assert after_memories == before_memories
    assert [d for d in after_documents if d["id"] != document["id"]] == before_documents
    async with mcp_client(ingest.url, http.key) as mcp:
        shown = await mcp.call_tool("getDocument", {"documentId": document["id"]})
        assert reason in str(shown.content[0].text)  # type: ignore[union-attr]
        retried = data(await mcp.call_tool("retryDocument", {"documentId": document["id"]}))
        assert retried["document"]["status"] == "queued"  # read again by the worker
    again = await settled(client, document["id"])
    assert again["status"] == "failed" and reason in again["error"]


async def test_refused_uploads_store_nothing(http: Uploader) -> None:
    client = http.client
    empty = await upload(client, "empty.txt", b"")
    assert empty.status_code == 422 and "'empty.txt' is empty" in empty.json()["message"]
    unknown = await upload(client, "photo.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert unknown.status_code == 422 and "memspace reads PDF" in unknown.json()["message"]
    too_big = await upload(client, "big.txt", b"x" * (UPLOAD_LIMIT + 100 * 1024))
    assert too_big.status_code == 413
    assert "the upload limit is 12,582,912 bytes (12 MiB, MEMSPACE_MAX_UPLOAD_BYTES)" in (
        too_big.json()["message"])

    async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: refused while reading
        boundary = b"--b0undary\r\n"
        yield boundary + b'Content-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n'
        for _ in range(14):
            yield b"y" * 2**20
        yield b"\r\n--b0undary--\r\n"

    streamed = await client.post("/v1/documents", content=chunked(),
                                 headers={"Content-Type": "multipart/form-data; boundary=b0undary"})
    assert streamed.status_code == 413 and "nothing was stored" in streamed.json()["message"]
    no_file = await client.post("/v1/documents", data={"title": "no file"})
    assert no_file.status_code == 422 and "field `file`" in no_file.json()["message"]
    assert (await space_state(client)) == ([], [])


async def test_only_a_writer_of_the_space_uploads_and_others_see_nothing(
    ingest: Ingest, http: Uploader,
) -> None:
    client = http.client
    reader = ingest.app.admin.create_key("reader", {http.slug: Access.READ}).raw
    outsider = ingest.space()[1]
    accepted = await upload(client, "notes.txt", b"Standups are at 9:30.")
    document_id = accepted.json()["id"]
    async with httpx2.AsyncClient(base_url=ingest.url, headers={"X-Api-Key": reader}) as as_reader:
        refused = await upload(as_reader, "notes.txt", b"Planted.")
        assert refused.status_code == 403 and "can only read" in refused.json()["message"]
        assert (await as_reader.get(f"/v1/documents/{document_id}")).status_code == 200
    async with httpx2.AsyncClient(base_url=ingest.url, headers={"X-Api-Key": outsider}) as stranger:
        assert (await stranger.get(f"/v1/documents/{document_id}")).status_code == 404
        assert (await stranger.get(f"/v1/documents/{document_id}",
                                   params={"space": http.slug})).status_code == 404
    async with mcp_client(ingest.url, outsider) as mcp:
        assert "no document" in error_text(await mcp.call_tool("getDocument",
                                                               {"documentId": document_id}))
    async with httpx2.AsyncClient(base_url=ingest.url) as anonymous:
        assert (await upload(anonymous, "notes.txt", b"x")).status_code == 401


def test_a_restart_resumes_a_document_where_it_stopped(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """The server stops mid-document (its worker between two chunks); the next one goes on."""
    settings = Settings(_env_file=None, data_dir=tmp_path, chunk_chars=100)  # type: ignore[call-arg]
    first = build(settings, embedder=embedder)
    first.admin.create_space("restart")
    who = first.access.operator()
    text = " ".join(f"Fact number {i} is about the restart test." for i in range(12)).encode()
    document = first.ingestion.upload(who, "facts.txt", text, "restart").document
    stopped = first.ingestion.process(document, should_stop=lambda: bool(
        (d := first.store.documents.get_document(document.space_id, document.id)) and d.chunks_done >= 2))
    assert (stopped.status.value, stopped.chunks_done) == ("processing", 2)
    first.close()
    second = build(settings, embedder=embedder)
    with running_server(second):
        deadline = time.monotonic() + 120
        while (current := second.store.documents.get_document(document.space_id, document.id)) is not None \
                and current.status.value != "done":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert current is not None and current.chunks_done == current.chunks_total == 6
    space = second.store.directory.get_space_by_slug("restart")
    assert space is not None and second.store.directory.space_stats(space.id).active_memories == 6
    second.close()
