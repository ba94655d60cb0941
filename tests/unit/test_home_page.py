"""`GET /` answers whoever opens the server's address in a browser with where to go next."""

from __future__ import annotations

import httpx

from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock


async def test_the_root_page_names_mcp_docs_readyz_and_the_readme_without_a_key() -> None:
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    transport = httpx.ASGITransport(app=create_app(app, warm_up=False))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            page = await client.get("/")
            mcp = await client.post("/mcp", json={})
    finally:
        app.close()
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for named in ("/mcp", "/docs", "/readyz", "README"):
        assert named in page.text, named
    assert len(page.text) < 2_000
    assert mcp.status_code == 401  # the page opens nothing else
