"""Per-key rate limits under load (issue 38): one noisy key floods a served memspace and is
answered 429 with Retry-After (REST) or `rate_limited` (MCP tool calls), while a quiet key's
requests, sent during the flood, all succeed. Counts only, no timings."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memspace.bootstrap import build
from memspace.config import Settings
from memspace.domain.models import Access
from tests.support.fakes import HashEmbedder
from tests.support.server import running_server

LIMIT = 60  # a minute: a bucket of 60, refilled at one a second
FLOOD = 240


async def test_a_noisy_key_cannot_starve_the_others(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, rate_limit=LIMIT)  # type: ignore[call-arg]
    app = build(settings, embedder=HashEmbedder())
    slug = f"busy-{uuid.uuid4().hex[:6]}"
    app.admin.create_space(slug)
    noisy = app.admin.create_key("noisy", {slug: Access.READWRITE}).raw
    quiet = app.admin.create_key("quiet", {slug: Access.READWRITE}).raw
    try:
        with running_server(app) as url:
            async with httpx.AsyncClient(timeout=60,
                                         limits=httpx.Limits(max_connections=16)) as http:
                async def get(key: str) -> httpx.Response:
                    return await http.get(f"{url}/v1/memories", params={"space": slug},
                                          headers={"X-Api-Key": key})

                async def quiet_calls() -> list[httpx.Response]:
                    answers = []
                    for _ in range(20):  # one after another, interleaved with the flood
                        answers.append(await get(quiet))
                    return answers

                flood, calm = await asyncio.gather(
                    asyncio.gather(*(get(noisy) for _ in range(FLOOD))), quiet_calls())
            codes = [r.status_code for r in flood]
            limited = [r for r in flood if r.status_code == 429]
            assert set(codes) <= {200, 429}
            # The bucket (60) plus what refilled while the flood ran; the rest refused.
            assert LIMIT <= codes.count(200) < FLOOD and len(limited) >= FLOOD // 3, codes.count(200)
            assert all(int(r.headers["retry-after"]) >= 1 for r in limited)
            assert limited[0].json()["error"] == "rate_limited"
            assert [r.status_code for r in calm] == [200] * 20  # never starved

            # Over MCP the tool call answers the closed-set code, and the session survives.
            client_http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {noisy}"},
                                             timeout=60)
            async with client_http, Client(streamable_http_client(
                    f"{url}/mcp", http_client=client_http)) as client:
                answer = None
                for _ in range(LIMIT + 5):  # bounded: the bucket is empty or soon will be
                    answer = await client.call_tool("listSpaces", {})
                    if answer.is_error:
                        break
                assert answer is not None and answer.is_error
                assert answer.structured_content["code"] == "rate_limited"
                assert answer.structured_content["retryAfter"] >= 1
    finally:
        app.close()


@pytest.mark.parametrize("per_minute", [1, 600])
def test_a_bucket_holds_a_minute_and_refills_at_the_limits_pace(per_minute: int) -> None:
    from memspace.api.rate_limit import RateLimiter

    clock = [0.0]
    limiter = RateLimiter(per_minute, now=lambda: clock[0])
    assert all(limiter.take("a") == 0 for _ in range(per_minute))
    wait = limiter.take("a")
    assert wait >= 1 and limiter.take("b") == 0  # another caller has its own bucket
    clock[0] += wait
    assert limiter.take("a") == 0
