"""OAuth across replicas and at an origin it cannot serve, over real HTTP: a consent form signed
by one replica is accepted by another that shares MEMSPACE_UPLOAD_SECRET (and refused by one that
does not), and a plain-http public URL off loopback turns OAuth off and says why."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from pydantic import SecretStr

from memspace.domain.models import Access
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.oauth_browser import field, pkce
from tests.support.server import bound_socket, running_server

pytestmark = pytest.mark.e2e
REDIRECT = "http://127.0.0.1:3999/callback"


@dataclass
class Replicas:
    one: str  # the public URL: the issuer, and the audience of tokens (its /mcp)
    two: str  # a replica behind the same URL, with the same secret
    stranger: str  # a replica whose secret differs
    key: str
    space: str


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    data_dir: Path = tmp_path_factory.mktemp("replicas")
    sock = bound_socket()
    public = f"http://127.0.0.1:{sock.getsockname()[1]}"

    def replica(secret: str) -> Settings:
        return Settings(_env_file=None, data_dir=data_dir, public_url=public,  # type: ignore[call-arg]
                        upload_secret=SecretStr(secret))

    apps = [build(replica(s), embedder=HashEmbedder()) for s in ("shared-s3cret", "shared-s3cret",
                                                                  "another-s3cret")]
    space = f"replicas-{uuid.uuid4().hex[:8]}"
    apps[0].admin.create_space(space)
    key = apps[0].admin.create_key("alice", {space: Access.READWRITE}).raw
    try:
        with running_server(apps[0], sock=sock) as one, running_server(apps[1]) as two, \
                running_server(apps[2]) as stranger:
            yield Replicas(one, two, stranger, key, space)
    finally:
        for app in apps:
            app.close()


async def test_a_consent_form_signed_by_one_replica_is_accepted_by_another(replicas: Replicas) -> None:
    async with httpx.AsyncClient(timeout=30) as browser:  # one cookie jar, as one browser
        registered = await browser.post(f"{replicas.two}/register", json={
            "client_name": "agent", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"})
        assert registered.status_code == 201, registered.text
        client_id = registered.json()["client_id"]
        verifier, challenge = pkce()
        query = urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
                           "state": "st4te", "code_challenge": challenge,
                           "code_challenge_method": "S256"})
        page = await browser.get(f"{replicas.one}/authorize?{query}", follow_redirects=True)
        assert page.status_code == 200 and str(page.url).startswith(replicas.one), page.text
        form = {"request": field(page.text, "request"), "csrf": field(page.text, "csrf")}

        # a replica with another secret cannot read what the first one signed
        forged = await browser.post(f"{replicas.stranger}/authorize/consent",
                                    data={**form, "step": "signin", "credential": replicas.key})
        assert forged.status_code == 403, forged.text

        chosen = await browser.post(f"{replicas.two}/authorize/consent",
                                    data={**form, "step": "signin", "credential": replicas.key})
        assert chosen.status_code == 200 and "Choose spaces" in chosen.text, chosen.text
        approved = await browser.post(f"{replicas.one}/authorize/consent", data={
            **form, "identity": field(chosen.text, "identity"), "step": "approve",
            f"grant:{replicas.space}": "read"})
        assert approved.status_code == 302, approved.text
        back = {k: v[0] for k, v in parse_qs(urlsplit(approved.headers["location"]).query).items()}
        assert back["state"] == "st4te" and "code" in back, back

        tokens = await browser.post(f"{replicas.two}/token", data={
            "grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
            "client_id": client_id, "code_verifier": verifier})
        assert tokens.status_code == 200, tokens.text
        listed = await browser.post(f"{replicas.one}/mcp", headers={
            "Authorization": f"Bearer {tokens.json()['access_token']}",
            "Accept": "application/json, text/event-stream"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "listSpaces", "arguments": {}}})
    assert listed.status_code == 200, listed.text
    assert replicas.space in listed.text


@pytest.mark.parametrize("public_url, on", [
    ("http://memspace.example.com", False), ("http://10.0.0.7:8000", False),
    ("https://memspace.example.com", True), (None, True),  # None: http://127.0.0.1:<port>
], ids=["http-name", "http-ip", "https", "loopback-http"])
async def test_oauth_is_off_for_a_plain_http_public_url_off_loopback_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, public_url: str | None, on: bool,
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, public_url=public_url)  # type: ignore[call-arg]
    app = build(settings, embedder=HashEmbedder())
    try:
        with caplog.at_level(logging.WARNING, logger="memspace"), running_server(app) as url:
            async with httpx.AsyncClient(timeout=30) as http:
                metadata = await http.get(f"{url}/.well-known/oauth-authorization-server")
                anonymous = await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1,
                                                                "method": "ping"})
    finally:
        app.close()
    said = [r.getMessage() for r in caplog.records if "OAuth is off" in r.getMessage()]
    assert anonymous.status_code == 401  # keys still required, either way
    challenge = anonymous.headers["www-authenticate"]
    if on:
        assert metadata.status_code == 200 and "resource_metadata=" in challenge
        assert not said
    else:
        assert metadata.status_code == 404 and "resource_metadata=" not in challenge
        [warning] = said
        assert "MEMSPACE_PUBLIC_URL" in warning and "https://" in warning
