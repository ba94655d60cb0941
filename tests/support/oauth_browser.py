"""A person at the consent page, played with httpx: open the authorization URL, sign in, choose
spaces, approve. Also a PKCE pair and a token store for the SDK's OAuthClientProvider."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


def pkce() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    return verifier, challenge.decode()


def field(html: str, name: str) -> str:
    found = re.search(rf'name={re.escape(name)} value="([^"]*)"', html)
    assert found, f"no field {name} in the page:\n{html}"
    return found.group(1).replace("&amp;", "&")


class Person:
    """One browser (one cookie jar) answering consent pages."""

    def __init__(self, credential: str, grants: dict[str, str] | None = None) -> None:
        self.credential = credential
        self.grants = grants  # slug -> read|readwrite|none; None: keep the page's presets
        self.http = httpx.AsyncClient(timeout=30)
        self.last_page = ""

    async def sign_in(self, authorize_url: str) -> httpx.Response:
        """Opens the URL (following the server's redirect to its consent page) and signs in."""
        page = await self.http.get(authorize_url, follow_redirects=True)
        assert page.status_code == 200, page.text
        self.last_page = page.text
        self.consent_url = str(page.url).split("?")[0]
        return await self.http.post(self.consent_url, data={
            "request": field(page.text, "request"), "csrf": field(page.text, "csrf"),
            "step": "signin", "credential": self.credential})

    async def approve(self, authorize_url: str) -> httpx.Response:
        """The whole consent; returns the server's answer to Approve (a redirect when granted)."""
        chosen = await self.sign_in(authorize_url)
        assert chosen.status_code == 200, chosen.text
        self.last_page = chosen.text
        form = {"request": field(chosen.text, "request"), "csrf": field(chosen.text, "csrf"),
                "identity": field(chosen.text, "identity"), "step": "approve"}
        presets = dict(re.findall(r"name='grant:([^']+)'>.*?<option value=(\w+) selected", chosen.text))
        for slug, access in {**presets, **(self.grants or {})}.items():
            form[f"grant:{slug}"] = access
        return await self.http.post(self.consent_url, data=form)

    async def code_for(self, authorize_url: str) -> dict[str, str]:
        """The query of the redirect back to the client: code, state, iss (or error)."""
        answer = await self.approve(authorize_url)
        assert answer.status_code == 302, answer.text
        return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}

    async def aclose(self) -> None:
        await self.http.aclose()


class MemoryTokens:
    """TokenStorage for OAuthClientProvider, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info
