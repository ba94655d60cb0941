"""OAuth switched off by the public URL is said at start, never silent: a public URL that is
plain http on a non-loopback host cannot be an OAuth issuer, so the server logs why and what to
set, serves no OAuth discovery, and keeps taking API keys."""

from __future__ import annotations

import logging

import httpx
import pytest

from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock


async def discovery(public_url: str, caplog: pytest.LogCaptureFixture) -> int:
    settings = Settings(_env_file=None, public_url=public_url,  # type: ignore[call-arg]
                        allowed_hosts=["memory.example.com"])
    app = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder(),
                clock=StepClock(), blobs=MemoryBlobStore())
    try:
        with caplog.at_level(logging.WARNING, logger="memspace.api.oauth"):
            api = create_app(app, warm_up=False)
        transport = httpx.ASGITransport(app=api)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            answer = await client.get("/.well-known/oauth-authorization-server")
        return answer.status_code
    finally:
        app.close()


async def test_plain_http_public_url_logs_that_oauth_is_off(caplog: pytest.LogCaptureFixture) -> None:
    assert await discovery("http://memory.example.com", caplog) == 404
    [record] = [r for r in caplog.records if r.name == "memspace.api.oauth"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "OAuth is off: the public URL http://memory.example.com cannot be an OAuth issuer")
    assert "Set MEMSPACE_PUBLIC_URL to the https:// origin clients reach" in record.getMessage()


async def test_https_public_url_serves_oauth_and_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    assert await discovery("https://memory.example.com", caplog) == 200
    assert [r for r in caplog.records if r.name == "memspace.api.oauth"] == []
