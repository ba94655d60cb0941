"""OAuth 2.1 over real HTTP: the MCP SDK's own client-side OAuth drives discovery, registration,
PKCE, consent (answered by a Person with httpx), tokens and tool calls; then rotation, reuse,
expiry, revocation and the refusals, against a served memspace on each store."""

from __future__ import annotations

import html
import re
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from pydantic import AnyUrl

from memspace.domain.models import Access
from memspace.services.access.oauth import ACCESS_TTL
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.oauth_browser import MemoryTokens, Person, field, pkce
from tests.support.server import bound_socket, data, error_text, running_server

pytestmark = pytest.mark.e2e
REDIRECT = "http://127.0.0.1:3999/callback"


class ShiftClock:
    """Real time plus an offset the test moves forward (token expiry without waiting)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset


@dataclass
class Server:
    url: str
    app: Container
    clock: ShiftClock
    shared: str  # a space the key may write
    private: str  # a space the key may write but the connection is not granted
    readonly: str  # a space the key may only read
    key: str

    @property
    def mcp(self) -> str:
        return f"{self.url}/mcp"


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)], scope="module")
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir: Path = tmp_path_factory.mktemp("oauth")
    sock = bound_socket()  # the issuer and the token audience name this port: held till served
    port = int(sock.getsockname()[1])
    extra = {} if request.param == "sqlite" else {
        "store": "neo4j", "neo4j_uri": request.getfixturevalue("neo4j_uri")}
    settings = Settings(_env_file=None, data_dir=data_dir, port=port, **extra)  # type: ignore[call-arg]
    clock = ShiftClock()
    # Sign-in is what is under test, not recall: a hashing embedder keeps the model out of it.
    app = build(settings, embedder=HashEmbedder(), clock=clock)
    tag = uuid.uuid4().hex[:8]
    shared, private, readonly = (app.admin.create_space(f"{n}-{tag}").slug
                                 for n in ("shared", "private", "readonly"))
    key = app.admin.create_key(f"alice-{tag}", {shared: Access.READWRITE, private: Access.READWRITE,
                                                readonly: Access.READ}).raw
    with running_server(app, sock=sock) as url:
        yield Server(url, app, clock, shared, private, readonly, key)
    app.close()


@pytest.fixture
async def person(server: Server) -> AsyncIterator[Person]:
    someone = Person(server.key, {server.private: "none"})
    yield someone
    await someone.aclose()


def sdk_oauth(server: Server, person: Person, storage: MemoryTokens,
              asked: list[str]) -> OAuthClientProvider:
    """The SDK's OAuthClientProvider; its browser step is the Person approving the consent
    (each authorization URL it was sent to lands in `asked`)."""
    answers: list[AuthorizationCodeResult] = []

    async def open_browser(url: str) -> None:
        asked.append(url)
        query = await person.code_for(url)
        answers.append(AuthorizationCodeResult(code=query["code"], state=query.get("state"),
                                               iss=query.get("iss")))

    async def callback() -> AuthorizationCodeResult:
        return answers.pop()

    metadata = OAuthClientMetadata(client_name="e2e agent", redirect_uris=[AnyUrl(REDIRECT)],
                                   token_endpoint_auth_method="none")
    return OAuthClientProvider(server.mcp, metadata, storage, open_browser, callback)


async def test_the_sdk_client_signs_in_and_sees_only_the_granted_spaces(
        server: Server, person: Person) -> None:
    storage, asked = MemoryTokens(), []
    oauth = sdk_oauth(server, person, storage, asked)
    http = httpx2.AsyncClient(auth=oauth, timeout=30)
    async with http, Client(streamable_http_client(server.mcp, http_client=http)) as client:
        spaces = {s["slug"]: s["access"] for s in data(await client.call_tool("listSpaces", {}))["spaces"]}
        assert spaces == {server.shared: "readwrite", server.readonly: "read"}
        saved = await client.call_tool("add_memory", {"content": "Deploys go out on Tuesdays",
                                                      "space": server.shared, "wait": True})
        data(saved)
        hidden = error_text(await client.call_tool("search_memory", {"query": "deploys",
                                                                     "space": server.private}))
        assert "not found" in hidden  # same words as a space that does not exist
        refused = error_text(await client.call_tool("add_memory", {"content": "x",
                                                                   "space": server.readonly}))
        assert "only read" in refused
        assert len(asked) == 1 and "code_challenge_method=S256" in asked[0]
        assert storage.tokens is not None and storage.tokens.access_token.startswith("msa_")
        assert storage.client is not None and storage.client.client_secret is None

        # Half an hour later, for the server and the client alike: the SDK refreshes on its own.
        first = storage.tokens
        server.clock.offset += ACCESS_TTL + timedelta(seconds=1)
        try:
            oauth.context.token_expiry_time = time.time() - 1
            data(await client.call_tool("listSpaces", {}))
            assert len(asked) == 1 and storage.tokens.refresh_token != first.refresh_token
            # The first refresh token, replayed (say, stolen): refused, and the family with it,
            # so the client's next call is refused and it has to ask the person again.
            async with httpx.AsyncClient() as raw:
                replay = await refresh(raw, server, storage.client.client_id, first.refresh_token or "")
            assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
            data(await client.call_tool("listSpaces", {}))
            assert len(asked) == 2
        finally:
            server.clock.offset = timedelta()


async def register(http: httpx.AsyncClient, server: Server, redirect: str = REDIRECT) -> str:
    answer = await http.post(f"{server.url}/register", json={
        "client_name": "test", "redirect_uris": [redirect], "token_endpoint_auth_method": "none"})
    assert answer.status_code == 201, answer.text
    client_id: str = answer.json()["client_id"]
    return client_id


def authorize_url(server: Server, client_id: str, challenge: str | None, method: str | None = "S256",
                  redirect: str = REDIRECT, **extra: str) -> str:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect,
              "state": "st4te", **extra}
    if challenge is not None:
        params["code_challenge"] = challenge
    if method is not None:
        params["code_challenge_method"] = method
    return f"{server.url}/authorize?{urlencode(params)}"


async def tokens_for(http: httpx.AsyncClient, server: Server, person: Person,
                     client_id: str) -> dict[str, str]:
    verifier, challenge = pkce()
    query = await person.code_for(authorize_url(server, client_id, challenge))
    assert query["state"] == "st4te" and query["iss"] == f"{server.url}/"
    answer = await http.post(f"{server.url}/token", data={
        "grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
        "client_id": client_id, "code_verifier": verifier})
    assert answer.status_code == 200, answer.text
    tokens: dict[str, str] = answer.json()
    return tokens


async def call_mcp(http: httpx.AsyncClient, server: Server, token: str) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return await http.post(server.mcp, headers=headers,
                           json={"jsonrpc": "2.0", "id": 1, "method": "ping"})


def back_link(page: str) -> str:
    """The link back to the client on an error page (HTML-escaped in the page)."""
    found = re.search(r'<a rel=noreferrer href="([^"]+)"', page)
    assert found, page
    return html.unescape(found.group(1))


async def refresh(http: httpx.AsyncClient, server: Server, client_id: str,
                  token: str) -> httpx.Response:
    return await http.post(f"{server.url}/token", data={
        "grant_type": "refresh_token", "refresh_token": token, "client_id": client_id})


async def test_discovery_starts_at_a_401_from_mcp(server: Server) -> None:
    async with httpx.AsyncClient() as http:
        denied = await call_mcp(http, server, "")
        assert denied.status_code == 401
        challenge = denied.headers["www-authenticate"]
        assert f'resource_metadata="{server.url}/.well-known/oauth-protected-resource/mcp"' in challenge
        resource = (await http.get(f"{server.url}/.well-known/oauth-protected-resource")).json()
        assert resource["resource"] == server.mcp and resource["authorization_servers"] == [f"{server.url}/"]
        meta = (await http.get(f"{server.url}/.well-known/oauth-authorization-server")).json()
        assert meta["issuer"] == f"{server.url}/"  # as authorization_servers names it
        assert meta["code_challenge_methods_supported"] == ["S256"]
        assert meta["registration_endpoint"] == f"{server.url}/register"
        assert meta["token_endpoint_auth_methods_supported"] == ["none"]


async def test_refresh_tokens_rotate_and_a_reused_one_revokes_the_family(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        first = await tokens_for(http, server, person, client_id)
        assert (await call_mcp(http, server, first["access_token"])).status_code == 200
        second = await refresh(http, server, client_id, first["refresh_token"])
        assert second.status_code == 200 and second.json()["refresh_token"] != first["refresh_token"]
        reused = await refresh(http, server, client_id, first["refresh_token"])
        assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
        # The whole family is gone: the rotated refresh token and every access token.
        assert (await refresh(http, server, client_id, second.json()["refresh_token"])).status_code == 400
        assert (await call_mcp(http, server, second.json()["access_token"])).status_code == 401
        assert (await call_mcp(http, server, first["access_token"])).status_code == 401


async def test_an_access_token_expires_and_a_revoked_one_is_refused(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        tokens = await tokens_for(http, server, person, client_id)
        server.clock.offset += ACCESS_TTL + timedelta(seconds=1)
        try:
            expired = await call_mcp(http, server, tokens["access_token"])
        finally:
            server.clock.offset = timedelta()
        assert expired.status_code == 401 and "expired" in expired.json()["message"]
        assert (await call_mcp(http, server, tokens["access_token"])).status_code == 200
        revoked = await http.post(f"{server.url}/revoke", data={
            "token": tokens["refresh_token"], "client_id": client_id})
        assert revoked.status_code == 200
        assert (await call_mcp(http, server, tokens["access_token"])).status_code == 401


async def test_a_code_works_once_and_its_reuse_revokes_what_it_issued(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        verifier, challenge = pkce()
        query = await person.code_for(authorize_url(server, client_id, challenge))
        form = {"grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
                "client_id": client_id, "code_verifier": verifier}
        first = await http.post(f"{server.url}/token", data=form)
        assert first.status_code == 200
        again = await http.post(f"{server.url}/token", data=form)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        assert (await call_mcp(http, server, first.json()["access_token"])).status_code == 401


async def test_authorization_without_s256_pkce_is_refused(server: Server) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        for url in (authorize_url(server, client_id, None, None),
                    authorize_url(server, client_id, "abc" * 15, "plain")):
            answer = await http.get(url)
            # Answered on a page, with the way back as a link (never an automatic redirect).
            assert answer.status_code == 400 and "location" not in answer.headers, answer.text
            back = parse_qs(urlsplit(back_link(answer.text)).query)
            assert back["error"] == ["invalid_request"] and back["state"] == ["st4te"]
            assert back["iss"] == [f"{server.url}/"]


async def test_a_wrong_verifier_gets_no_token(server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        _, challenge = pkce()
        query = await person.code_for(authorize_url(server, client_id, challenge))
        answer = await http.post(f"{server.url}/token", data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
            "client_id": client_id, "code_verifier": pkce()[0]})
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"


async def test_redirect_uris_match_exactly_except_a_loopback_port(server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        _, challenge = pkce()
        other_port = authorize_url(server, client_id, challenge,
                                   redirect="http://127.0.0.1:41234/callback")
        assert (await person.sign_in(other_port)).status_code == 200
        for wrong in ("http://127.0.0.1:3999/elsewhere", "https://evil.example/callback"):
            answer = await http.get(authorize_url(server, client_id, challenge, redirect=wrong))
            assert answer.status_code == 400 and "not registered" in answer.json()["error_description"]
        https_client = await register(http, server, "https://app.example/cb")
        near = await http.get(authorize_url(server, https_client, challenge,
                                            redirect="https://app.example:8443/cb"))
        assert near.status_code == 400
        plain = await http.post(f"{server.url}/register", json={
            "redirect_uris": ["http://app.example/cb"]})
        assert plain.status_code == 400 and plain.json()["error"] == "invalid_redirect_uri"


async def test_tokens_are_only_for_this_server(server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        _, challenge = pkce()
        answer = await http.get(authorize_url(server, client_id, challenge,
                                              resource="https://other.example/mcp"))
        assert answer.status_code == 400 and "location" not in answer.headers
        assert parse_qs(urlsplit(back_link(answer.text)).query)["error"] == ["invalid_target"]
        tokens = await tokens_for(http, server, person, client_id)
        # A second deployment on the same store, at another address: another resource.
        other_sock = bound_socket()
        other = build(server.app.settings.model_copy(update={"port": other_sock.getsockname()[1]}),
                      embedder=HashEmbedder())
        try:
            with running_server(other, sock=other_sock) as other_url:
                assert other_url != server.url
                refused = await call_mcp(http, Server(other_url, other, server.clock, "", "", "", ""),
                                         tokens["access_token"])
        finally:
            other.close()
        assert refused.status_code == 401 and f"issued for {server.mcp}" in refused.json()["message"]
        assert (await call_mcp(http, server, tokens["access_token"])).status_code == 200


async def test_consent_never_grants_more_than_the_signed_in_key(server: Server) -> None:
    greedy = Person(server.key, {server.readonly: "readwrite", server.private: "none"})
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client_id = await register(http, server)
            answer = await greedy.approve(authorize_url(server, client_id, pkce()[1]))
            assert answer.status_code == 400 and "only read" in answer.text
            assert "readwrite selected" not in greedy.last_page.split(server.readonly)[1][:200]
    finally:
        await greedy.aclose()


async def test_a_login_link_signs_in_once_and_a_revoked_key_ends_its_tokens(server: Server) -> None:
    link = server.app.oauth.create_login_link(f"bob-{uuid.uuid4().hex[:6]}",
                                              {server.shared: Access.READ})
    bob = Person(f"{server.url}/authorize/login?code={link.code}")  # pasted
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client_id = await register(http, server)
            tokens = await tokens_for(http, server, bob, client_id)
            assert (await call_mcp(http, server, tokens["access_token"])).status_code == 200
            again = await bob.sign_in(authorize_url(server, client_id, pkce()[1]))
            assert again.status_code == 401 and "already used" in again.text
            server.app.admin.revoke_key(link.key.prefix)
            assert (await call_mcp(http, server, tokens["access_token"])).status_code == 401
            assert (await refresh(http, server, client_id, tokens["refresh_token"])).status_code == 400
    finally:
        await bob.aclose()


async def test_a_consent_form_without_its_cookie_is_refused(server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        await person.sign_in(authorize_url(server, client_id, pkce()[1]))
        stranger = httpx.AsyncClient(timeout=30)
        async with stranger:
            forged = await stranger.post(person.consent_url, data={
                "request": "x", "csrf": "y", "step": "signin", "credential": server.key})
        assert forged.status_code == 403


async def test_api_keys_work_as_before_beside_oauth(server: Server) -> None:
    for headers in ({"Authorization": f"Bearer {server.key}"}, {"X-Api-Key": server.key}):
        http = httpx2.AsyncClient(headers=headers, timeout=30)
        async with http, Client(streamable_http_client(server.mcp, http_client=http)) as client:
            spaces = data(await client.call_tool("listSpaces", {}))["spaces"]
            assert {s["slug"] for s in spaces} >= {server.shared, server.private, server.readonly}


async def test_the_consent_page_loads_nothing_from_elsewhere_and_can_be_declined(
        server: Server) -> None:
    wrong = Person("msk_00000000_" + "x" * 43)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client_id = await register(http, server)
            refused = await wrong.sign_in(authorize_url(server, client_id, pkce()[1]))
            assert refused.status_code == 401 and "unknown API key" in refused.text
            page = await wrong.http.get(authorize_url(server, client_id, pkce()[1]),
                                        follow_redirects=True)
            assert page.headers["content-security-policy"].startswith("default-src 'none'")
            assert page.headers["x-frame-options"] == "DENY"
            assert "src=" not in page.text and "<script" not in page.text and "href=" not in page.text
            declined = await wrong.http.post(str(page.url).split("?")[0], data={
                "request": field(page.text, "request"), "csrf": field(page.text, "csrf"),
                "step": "deny"})
            back = parse_qs(urlsplit(declined.headers["location"]).query)
            assert back["error"] == ["access_denied"] and back["state"] == ["st4te"]
            assert declined.headers["location"].startswith(REDIRECT)
    finally:
        await wrong.aclose()


async def test_a_login_link_opened_in_the_browser_offers_continue_on_the_consent_page(
        server: Server) -> None:
    link = server.app.oauth.create_login_link(f"carol-{uuid.uuid4().hex[:6]}",
                                              {server.shared: Access.READWRITE})
    carol = Person("")
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client_id = await register(http, server)
            opened = await carol.http.get(f"{server.url}/authorize/login?code={link.code}")
            assert opened.status_code == 200 and "<script" not in opened.text
            again = await carol.http.get(f"{server.url}/authorize/login?code={link.code}")
            assert again.status_code == 200  # opening (or a chat app's preview) uses nothing up
            form = {"code": field(again.text, "code"), "csrf": field(again.text, "csrf")}
            signed = await carol.http.post(f"{server.url}/authorize/login", data=form)
            assert signed.status_code == 200 and "Signed in as <b>carol" in signed.text
            replayed = await carol.http.post(f"{server.url}/authorize/login", data=form)
            assert replayed.status_code == 401 and "already used" in replayed.text

            verifier, challenge = pkce()
            page = await carol.http.get(authorize_url(server, client_id, challenge),
                                        follow_redirects=True)
            assert "Continue as carol" in page.text
            consent_url = str(page.url).split("?")[0]
            chosen = await carol.http.post(consent_url, data={
                "request": field(page.text, "request"), "csrf": field(page.text, "csrf"),
                "step": "link"})
            assert chosen.status_code == 200 and "Signed in as <b>carol" in chosen.text
            approved = await carol.http.post(consent_url, data={
                "request": field(chosen.text, "request"), "csrf": field(chosen.text, "csrf"),
                "identity": field(chosen.text, "identity"), "step": "approve",
                f"grant:{server.shared}": "readwrite"})
            code = parse_qs(urlsplit(approved.headers["location"]).query)["code"][0]
            tokens = await http.post(f"{server.url}/token", data={
                "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                "client_id": client_id, "code_verifier": verifier})
            assert tokens.status_code == 200
            assert (await call_mcp(http, server, tokens.json()["access_token"])).status_code == 200

            elsewhere = Person("")  # another browser has no sign-in to continue with
            try:
                other = await elsewhere.http.get(authorize_url(server, client_id, pkce()[1]),
                                                 follow_redirects=True)
                assert "Continue as" not in other.text
            finally:
                await elsewhere.aclose()
    finally:
        await carol.aclose()
