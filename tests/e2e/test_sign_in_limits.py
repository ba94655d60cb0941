"""Limits an attacker meets at the door, over real HTTP: failed sign-ins are limited per client
address and per key prefix on /mcp, /v1 and the OAuth consent page (429 with Retry-After, the
credential no longer even checked), client registration is limited per address, an MCP
resource read draws on the key's bucket like a tool call, and an OAuth token on the bucket of
the key that approved it. The bucket's arithmetic is tested on a clock in
tests/unit/test_failed_sign_ins.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from memspace.domain.models import Access
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.oauth_browser import field, pkce
from tests.support.server import bound_socket, mcp_client, running_server

pytestmark = pytest.mark.e2e

FAILURES = 3  # MEMSPACE_AUTH_FAILURE_LIMIT of this server: a bucket of 3 failures a minute


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Container]]:
    settings = Settings(_env_file=None, data_dir=tmp_path, auth_failure_limit=FAILURES,  # type: ignore[call-arg]
                        rate_limit=4)
    app = build(settings, embedder=HashEmbedder())
    with running_server(app) as url:
        yield url, app
    app.close()


def guess(prefix: str = "msk_abcdefgh") -> str:
    return f"{prefix}_{uuid.uuid4().hex}{uuid.uuid4().hex[:11]}"


def test_guessing_keys_is_refused_after_the_limit_on_mcp_and_v1(
        served: tuple[str, Container]) -> None:
    url, app = served
    app.admin.create_space("team")
    real = app.admin.create_key("agent", {"team": Access.READWRITE}).raw
    with httpx2.Client(timeout=30) as http:
        answers = [http.post(f"{url}/v1/search", json={"query": "x", "space": "team"},
                             headers={"Authorization": f"Bearer {guess()}"}).status_code
                   for _ in range(FAILURES)]
        assert answers == [401] * FAILURES
        over = http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                         headers={"Authorization": f"Bearer {guess('msk_zzzzzzzz')}"})
        assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
        assert over.json()["error"] == "rate_limited"
        # Even a real key is not checked from this address until the bucket refills: a
        # guesser cannot tell a hit from a miss.
        blocked = http.post(f"{url}/v1/search", json={"query": "x", "space": "team"},
                            headers={"Authorization": f"Bearer {real}"})
        assert blocked.status_code == 429
        # No credential at all is no failure (clients discover OAuth that way).
        bare = http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert bare.status_code == 401


def test_client_registration_is_limited_per_address(served: tuple[str, Container]) -> None:
    url, _ = served
    body = {"client_name": "probe", "redirect_uris": ["http://127.0.0.1:9/cb"],
            "grant_types": ["authorization_code"], "response_types": ["code"]}
    with httpx2.Client(timeout=30) as http:
        codes = [http.post(f"{url}/register", json=body).status_code for _ in range(FAILURES + 1)]
        assert codes[:FAILURES] == [201] * FAILURES and codes[FAILURES] == 429


async def test_resource_reads_draw_on_the_keys_bucket(served: tuple[str, Container]) -> None:
    url, app = served
    app.admin.create_space("reads")
    key = app.admin.create_key("reader", {"reads": Access.READ}).raw
    async with mcp_client(url, key) as client:
        refused = None
        for _ in range(12):  # the bucket holds 4 requests (the session's own requests count)
            try:
                await client.read_resource("memspace://profile")
            except MCPError as exc:
                refused = exc
                break
        assert refused is not None and "rate_limited" in str(refused)


async def test_keys_pasted_on_the_consent_page_are_limited_like_any_other(tmp_path: Path) -> None:
    sock = bound_socket()  # the issuer names this port: held till served
    settings = Settings(_env_file=None, data_dir=tmp_path, auth_failure_limit=FAILURES,  # type: ignore[call-arg]
                        port=int(sock.getsockname()[1]))
    app = build(settings, embedder=HashEmbedder())
    app.admin.create_space("team")
    real = app.admin.create_key("person", {"team": Access.READWRITE}).raw
    try:
        with running_server(app, sock=sock) as url:
            async with httpx.AsyncClient(timeout=30) as http:
                registered = await http.post(f"{url}/register", json={
                    "client_name": "probe", "redirect_uris": ["http://127.0.0.1:9/cb"],
                    "token_endpoint_auth_method": "none"})
                query = urlencode({"response_type": "code", "client_id": registered.json()["client_id"],
                                   "redirect_uri": "http://127.0.0.1:9/cb", "state": "s",
                                   "code_challenge": pkce()[1], "code_challenge_method": "S256"})
                page = await http.get(f"{url}/authorize?{query}", follow_redirects=True)
                consent = str(page.url).split("?")[0]

                async def paste(credential: str) -> httpx.Response:
                    return await http.post(consent, data={
                        "request": field(page.text, "request"), "csrf": field(page.text, "csrf"),
                        "step": "signin", "credential": credential})

                refused = [await paste(guess()) for _ in range(FAILURES)]
                assert [r.status_code for r in refused] == [401] * FAILURES
                over = await paste(guess("msk_zzzzzzzz"))
                assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
                assert "too many failed sign-ins" in over.text
                # The real key is not even checked from this address until the bucket refills.
                blocked = await paste(real)
                assert blocked.status_code == 429 and "Approve" not in blocked.text
    finally:
        app.close()
