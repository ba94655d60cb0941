"""OAuth probed as an attacker would (issue 38): each finding of the review, over real HTTP,
against a served memspace on each store (the `server` of test_oauth.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from tests.e2e.test_oauth import (
    REDIRECT,
    Server,
    authorize_url,
    back_link,
    call_mcp,
    person,
    register,
    server,
    tokens_for,
)
from tests.support.oauth_browser import Person, field, pkce

pytestmark = pytest.mark.e2e
__all__ = ["person", "server"]  # the fixtures, shared with test_oauth.py


async def test_non_ascii_in_a_signed_value_or_the_csrf_field_is_refused_not_a_500(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        bad = await http.get(f"{server.url}/authorize/consent?request=abc.%C3%A9")
        assert bad.status_code == 400 and "invalid or has expired" in bad.text
        client_id = await register(http, server)
        await person.sign_in(authorize_url(server, client_id, pkce()[1]))
        page = await person.http.get(authorize_url(server, client_id, pkce()[1]), follow_redirects=True)
        for path, form in (
                ("/authorize/consent", {"request": field(page.text, "request"), "csrf": "é",
                                        "step": "deny"}),
                ("/authorize/login", {"code": "msl_" + "a" * 40, "csrf": "é"})):
            answer = await person.http.post(f"{server.url}{path}", data=form)
            assert answer.status_code == 403, (path, answer.status_code)
        # The signed value itself, with a non-ASCII MAC, on the consent POST.
        forged = await person.http.post(f"{server.url}/authorize/consent", data={
            "request": "abc.é", "csrf": field(page.text, "csrf"), "step": "deny"})
        assert forged.status_code == 403


async def test_a_fragment_on_a_loopback_redirect_is_refused_at_authorize_and_token(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server, "http://localhost/cb")
        verifier, challenge = pkce()
        sneaky = "http://localhost:5555/cb#injected=1&x"
        answer = await http.get(authorize_url(server, client_id, challenge, redirect=sneaky))
        assert answer.status_code == 400 and "not registered" in answer.json()["error_description"]
        # /token compares against what /authorize bound, so a good code with the fragment fails.
        good = "http://localhost:5555/cb"
        query = await person.code_for(authorize_url(server, client_id, challenge, redirect=good))
        refused = await http.post(f"{server.url}/token", data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": sneaky,
            "client_id": client_id, "code_verifier": verifier})
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"


async def test_invalid_requests_are_answered_on_a_page_not_redirected(server: Server) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        attacker = await register(http, server, "https://attacker.example/landing")
        for extra in ({"response_type": "token"}, {"resource": "https://other.example/mcp"}):
            url = authorize_url(server, attacker, pkce()[1],
                                redirect="https://attacker.example/landing") + "&" + urlencode(extra)
            answer = await http.get(url)
            assert answer.status_code == 400 and "location" not in answer.headers
            assert "does not send you back automatically" in answer.text
            back = parse_qs(urlsplit(back_link(answer.text)).query)
            assert back["iss"] == [f"{server.url}/"] and back["state"] == ["st4te"]


async def test_registration_is_bounded_and_redirect_schemes_are_an_allow_list(server: Server) -> None:
    async with httpx.AsyncClient(timeout=60) as http:
        async def attempt(**body: object) -> httpx.Response:
            return await http.post(f"{server.url}/register",
                                   json={"redirect_uris": [REDIRECT], **body})

        huge = await attempt(client_name="x" * (3 * 1024 * 1024))
        assert huge.status_code == 413
        long_name = await attempt(client_name="x" * 201)
        assert long_name.status_code == 400 and long_name.json()["error"] == "invalid_client_metadata"
        many = await http.post(f"{server.url}/register", json={
            "redirect_uris": [f"https://a.example/{i}" for i in range(11)]})
        assert many.status_code == 400
        for scheme_uri in ("ftp://a.example/cb", "ws://a.example/cb", "jar:file:/x!/cb",
                           "view-source:https://a.example/cb", "javascript:alert(1)"):
            refused = await attempt(redirect_uris=[scheme_uri])
            assert refused.status_code == 400, scheme_uri
        for usable in ("https://app.example/cb", "com.example.app:/oauth", "cursor://anysphere/cb"):
            assert (await attempt(redirect_uris=[usable])).status_code == 201, usable
        listed = {c.name for c in server.app.oauth.clients()}
        assert "x" * 201 not in listed


async def test_an_empty_or_malformed_code_challenge_is_refused_at_authorize(server: Server) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        for challenge in ("", "short", "é" * 43):
            answer = await http.get(authorize_url(server, client_id, challenge))
            assert answer.status_code == 400 and "location" not in answer.headers, challenge
            assert parse_qs(urlsplit(back_link(answer.text)).query)["error"] == ["invalid_request"]


async def test_tokens_are_for_mcp_only_and_a_foreign_resource_at_token_is_invalid_target(
        server: Server, person: Person) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        client_id = await register(http, server)
        tokens = await tokens_for(http, server, person, client_id)
        rest = await http.get(f"{server.url}/v1/memories",
                              headers={"Authorization": f"Bearer {tokens['access_token']}"})
        assert rest.status_code == 401 and "/v1 takes an API key" in rest.json()["message"]
        assert (await call_mcp(http, server, tokens["access_token"])).status_code == 200
        keyed = await http.get(f"{server.url}/v1/memories", params={"space": server.shared},
                              headers={"X-Api-Key": server.key})
        assert keyed.status_code == 200
        verifier, challenge = pkce()
        query = await person.code_for(authorize_url(server, client_id, challenge))
        foreign = await http.post(f"{server.url}/token", data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
            "client_id": client_id, "code_verifier": verifier,
            "resource": "https://other.example/mcp"})
        assert foreign.status_code == 400 and foreign.json()["error"] == "invalid_target"
        same = await http.post(f"{server.url}/token", data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
            "client_id": client_id, "code_verifier": verifier, "resource": server.mcp})
        assert same.status_code == 200, same.text


async def test_a_401_without_credentials_names_no_error(server: Server) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        bare = await call_mcp(http, server, "")
        assert bare.status_code == 401 and "error=" not in bare.headers["www-authenticate"]
        assert "resource_metadata=" in bare.headers["www-authenticate"]
        wrong = await call_mcp(http, server, "msk_00000000_" + "x" * 43)
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]


async def test_a_declined_consent_redirect_carries_iss(server: Server) -> None:
    someone = Person(server.key)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            client_id = await register(http, server)
            page = await someone.http.get(authorize_url(server, client_id, pkce()[1]),
                                          follow_redirects=True)
            declined = await someone.http.post(f"{server.url}/authorize/consent", data={
                "request": field(page.text, "request"), "csrf": field(page.text, "csrf"),
                "step": "deny"})
            back = parse_qs(urlsplit(declined.headers["location"]).query)
            assert back["error"] == ["access_denied"] and back["iss"] == [f"{server.url}/"]
    finally:
        await someone.aclose()
