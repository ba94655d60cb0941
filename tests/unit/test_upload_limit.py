"""413 while an upload is read, over the ASGI app in-process: a declared Content-Length over the
limit is refused before a byte of the body is pulled; a body without one is cut off as soon as it
passes the limit, not read to its end."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from memspace.api.documents import FORM_OVERHEAD
from memspace.domain.models import Access
from memspace.startup.app import create_app
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock

LIMIT = 256 * 1024
PIECE = 64 * 1024
PIECES = 40  # 2.5 MiB: ten times the limit
BOUNDARY = b"b0undary"


@pytest.fixture
def served() -> Iterator[tuple[Container, str]]:
    settings = Settings(_env_file=None, max_upload_bytes=LIMIT)  # type: ignore[call-arg]
    app = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder(), clock=StepClock(),
                blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    yield app, app.admin.create_key("uploader", {"acme": Access.READWRITE}).raw
    app.close()


class CountedBody:
    """A multipart body far over the limit that counts how many pieces the server pulled."""

    def __init__(self) -> None:
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield (b"--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="file"; '
               b'filename="big.txt"\r\n\r\n')
        for _ in range(PIECES):
            self.pulled += 1
            yield b"y" * PIECE
        yield b"\r\n--" + BOUNDARY + b"--\r\n"


async def post(served: tuple[Container, str], body: CountedBody,
               declared: int | None) -> httpx.Response:
    container, key = served
    headers = {"Authorization": f"Bearer {key}",
               "Content-Type": f"multipart/form-data; boundary={BOUNDARY.decode()}"}
    if declared is not None:
        headers["Content-Length"] = str(declared)
    transport = httpx.ASGITransport(app=create_app(container, warm_up=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post("/v1/documents", content=body.__aiter__(), headers=headers)


async def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read(
    served: tuple[Container, str],
) -> None:
    body = CountedBody()
    refused = await post(served, body, declared=PIECES * PIECE + 200)
    assert refused.status_code == 413 and "the upload limit is 262,144 bytes" in refused.json()["message"]
    assert body.pulled == 0
    assert served[0].store.documents.list_documents(served[0].store.directory.list_spaces()[0].id, 10) == []


async def test_a_body_without_a_length_is_cut_off_once_past_the_limit(
    served: tuple[Container, str],
) -> None:
    body = CountedBody()
    refused = await post(served, body, declared=None)
    assert refused.status_code == 413 and "nothing was stored" in refused.json()["message"]
    # Read up to the limit plus the form's allowance and one piece in flight, never to the end.
    assert 0 < body.pulled * PIECE <= LIMIT + FORM_OVERHEAD + 2 * PIECE < PIECES * PIECE
    assert served[0].store.documents.list_documents(served[0].store.directory.list_spaces()[0].id, 10) == []
