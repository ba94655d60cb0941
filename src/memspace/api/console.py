"""The console: the five views in any browser, as the signed-in key (docs/operations.md).

/console signs a browser in (an API key pasted once, or a `memspace login-link --console`) and
lists the key's spaces; /console/{space}/graph|conflicts|save|upload is a small MCP Apps host
page that runs the same built view through the SDK's AppBridge against this server's /mcp.

How the page reaches /mcp as the key: the session cookie is HttpOnly and scoped to /console, so
the page asks POST /console/bearer for a short-lived bearer (`msb_…`, signed, naming the session)
and sends it in `Authorization`, like any MCP client. A bearer in a header is never attached by
the browser on its own, so /mcp needs no CSRF defence for it; it is checked against the session
and the key on every request (api/auth.py), so signing out or revoking the key stops it at once,
and it is useless to anything but /mcp. The cookie was kept off /mcp on purpose: /mcp would then
need a CSRF check of its own for every client.

CSRF on the console's own state-changing requests: sign-in takes a double-submit cookie (login
CSRF); sign-out and the bearer take a value derived from the session token by HMAC, which a page
on another site cannot read. All cookies are SameSite=Strict as well.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
from html import escape
from typing import Any
from urllib.parse import quote

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from memspace.api.console_pages import (
    CONSOLE_VIEWS,
    host_page,
    not_found_page,
    page,
    security_headers,
    sign_in_page,
    spaces_page,
)
from memspace.api.oauth.signing import same_text
from memspace.api.rate_limit import FailedSignIns
from memspace.domain.errors import MemspaceError, NotFound, Unauthenticated
from memspace.services.access import (
    BEARER_PREFIX,
    LINK_IN_TEXT,
    SESSION_TTL,
    ConsoleSession,
    ConsoleSessions,
    OAuthService,
    Principal,
)
from memspace.startup.adapters import upload_secret
from memspace.startup.container import Container
from memspace.surfaces.console import console_sessions

SESSION_COOKIE = "memspace_console"
LOGIN_CSRF_COOKIE = "memspace_console_csrf"
CSRF_HEADER = "x-memspace-csrf"
COOKIE_PATH = "/console"
# Long enough for a view's work between two renewals, short enough that a copied bearer is soon
# useless even before the session ends. The page renews it before it runs out and on a 401.
BEARER_TTL_S = 10 * 60
# Where a sign-in may return to: a console page, never another site.
NEXT_PATH = re.compile(r"^/console/[A-Za-z0-9._-]+/(graph|conflicts|save|upload)$")


class ConsoleBearer:
    """Signs and checks the page's bearer for /mcp; the middleware calls `authenticate`."""

    def __init__(self, sessions: ConsoleSessions, secret: bytes) -> None:
        self._sessions = sessions
        self._key = hmac.new(secret, b"memspace console", hashlib.sha256).digest()

    def mint(self, session_digest: str) -> str:
        payload = _b64(json.dumps({"t": session_digest, "e": int(time.time()) + BEARER_TTL_S},
                                  separators=(",", ":")).encode())
        return f"{BEARER_PREFIX}{payload}.{self.mac(payload)}"

    def authenticate(self, raw: str) -> Principal:
        """The key behind a live session's bearer.

        Raises:
            Unauthenticated: altered, expired, or its session or key has ended.
        """
        payload, _, mac = raw.removeprefix(BEARER_PREFIX).partition(".")
        claims: Any = None
        if same_text(mac, self.mac(payload)):
            try:
                claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            except (ValueError, binascii.Error):
                claims = None
        if not isinstance(claims, dict) or int(claims.get("e", 0)) < time.time():
            raise Unauthenticated("this console bearer is invalid or has expired; reload the page")
        return self._sessions.by_digest(str(claims.get("t", ""))).principal

    def mac(self, text: str) -> str:
        return _b64(hmac.new(self._key, text.encode(), hashlib.sha256).digest())


class Console:
    def __init__(self, app: Container, sessions: ConsoleSessions, bearer: ConsoleBearer,
                 failures: FailedSignIns | None) -> None:
        self._app = app
        self._sessions = sessions
        self._bearer = bearer
        self._failures = failures  # a pasted key is limited like one sent to /mcp or /v1
        self._oauth: OAuthService = app.oauth
        self._origin = app.settings.public_origin

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/console", self.home, methods=["GET"]),
            Route("/console", self.sign_in, methods=["POST"]),
            Route("/console/login", self.link_page, methods=["GET"]),
            Route("/console/login", self.link_sign_in, methods=["POST"]),
            Route("/console/sign-out", self.sign_out, methods=["POST"]),
            Route("/console/bearer", self.renew_bearer, methods=["POST"]),
            Route("/console/{space}/{view}", self.view, methods=["GET"]),
        ]

    # -- signing in and out ---------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        session = await self._session(request)
        if session is None:
            return self._sign_in_form(request)
        listing = await anyio.to_thread.run_sync(self._app.spaces.listing, session.principal)
        return spaces_page(session.principal.name, listing, self._csrf(request))

    async def sign_in(self, request: Request) -> Response:
        form = await request.form()
        key, sent, after = (str(form.get(f) or "") for f in ("key", "csrf", "next"))
        csrf = request.cookies.get(LOGIN_CSRF_COOKIE, "")
        if not csrf or not same_text(csrf, sent):
            return self._sign_in_form(request, "This form expired; sign in again.", status=403)
        address = request.client.host if request.client else "unknown"
        if self._failures is not None and (wait := self._failures.blocked(address, key)):
            # Answered like /mcp and /v1 over the limit: 429 and when to try again, the key not
            # even checked.
            refused = self._sign_in_form(request, f"Too many failed sign-ins; try again in "
                                         f"{wait} s.", status=429, after=after)
            refused.headers["Retry-After"] = str(wait)
            return refused
        try:
            who = await anyio.to_thread.run_sync(self._oauth.sign_in, key)
        except Unauthenticated as exc:
            if self._failures is not None:
                self._failures.failed(address, key)
            return self._sign_in_form(request, f"Not signed in: {exc.message}", status=401,
                                      after=after)
        return await self._signed_in(request, who, after)

    async def link_page(self, request: Request) -> Response:
        """Opening a link uses nothing up (chat apps fetch links to preview them)."""
        code = LINK_IN_TEXT.search(request.query_params.get("code", ""))
        if code is None:
            return page("memspace sign-in link", "<p class=error>This link is incomplete: copy "
                        "the whole link the CLI printed.</p>", 400)
        csrf = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(32)
        response = page("Sign in to the memspace console", (
            f'<form method=post action="/console/login"><input type=hidden name=code '
            f'value="{escape(code.group(0))}"><input type=hidden name=csrf value="{escape(csrf)}">'
            "<p>This one-time link signs this browser in to the memspace console.</p>"
            "<button>Sign in</button></form>"))
        self._cookie(request, response, LOGIN_CSRF_COOKIE, csrf)
        return response

    async def link_sign_in(self, request: Request) -> Response:
        form = await request.form()
        code, sent = str(form.get("code") or ""), str(form.get("csrf") or "")
        csrf = request.cookies.get(LOGIN_CSRF_COOKIE, "")
        if not csrf or not same_text(csrf, sent) or LINK_IN_TEXT.search(code) is None:
            return page("Refused", "<p class=error>Open the sign-in link again.</p>", 403)
        try:
            who = await anyio.to_thread.run_sync(self._oauth.sign_in, code)
        except Unauthenticated as exc:
            return self._sign_in_form(request, f"Not signed in: {exc.message}", status=401)
        return await self._signed_in(request, who, "")

    async def sign_out(self, request: Request) -> Response:
        form = await request.form()
        token = request.cookies.get(SESSION_COOKIE, "")
        if not token or not same_text(self._csrf(request), str(form.get("csrf") or "")):
            return page("Refused", "<p class=error>This sign-out did not come from a console "
                        'page. <a href="/console">Back to the console</a></p>', 403)
        await anyio.to_thread.run_sync(self._sessions.end, token)
        response = self._sign_in_form(request, notice="Signed out.")
        response.delete_cookie(SESSION_COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict",
                               secure=self._secure(request))
        return response

    async def renew_bearer(self, request: Request) -> Response:
        session = await self._session(request)
        sent = request.headers.get(CSRF_HEADER, "")
        if session is None or not same_text(self._csrf(request), sent):
            return JSONResponse({"error": "unauthenticated", "message": "sign in to the console "
                                 "again"}, status_code=401, headers={"Cache-Control": "no-store"})
        token = request.cookies.get(SESSION_COOKIE, "")
        return JSONResponse({"bearer": self._bearer.mint(_digest(token)),
                             "expiresIn": BEARER_TTL_S}, headers={"Cache-Control": "no-store"})

    # -- the views ------------------------------------------------------------------------

    async def view(self, request: Request) -> Response:
        slug, path = request.path_params["space"], request.path_params["view"]
        session = await self._session(request)
        if session is None:
            after = request.url.path if NEXT_PATH.match(request.url.path) else ""
            return self._sign_in_form(request, after=after)
        if path not in CONSOLE_VIEWS:
            return page("Not found", "<p class=error>The console has graph, conflicts, save "
                        'and upload. <a href="/console">Your spaces</a></p>', 404)
        try:
            found = await anyio.to_thread.run_sync(self._app.access.resolve, session.principal, slug)
        except NotFound as exc:
            return not_found_page(exc.message)
        view, tool, _ = CONSOLE_VIEWS[path]
        arguments: dict[str, str] = {"space": found.space.slug}
        memory = request.query_params.get("memoryId")
        if path == "save" and memory:
            arguments["memoryId"] = memory
        token = request.cookies.get(SESSION_COOKIE, "")
        return host_page({
            "name": session.principal.name, "space": found.space.slug, "view": path,
            "tool": tool, "uri": view.uri, "arguments": arguments,
            "access": found.access.value, "csrf": self._csrf(request),
            "bearer": self._bearer.mint(_digest(token)), "renewAfterS": BEARER_TTL_S // 2,
            "views": [{"path": p, "label": label, "href": f"/console/{quote(found.space.slug)}/{p}"}
                      for p, (_, _, label) in CONSOLE_VIEWS.items()],
        }, self._origin)

    # -- helpers --------------------------------------------------------------------------

    async def _session(self, request: Request) -> ConsoleSession | None:
        token = request.cookies.get(SESSION_COOKIE, "")
        if not token:
            return None
        try:
            return await anyio.to_thread.run_sync(self._sessions.session, token)
        except MemspaceError:
            return None

    async def _signed_in(self, request: Request, who: Principal, after: str) -> Response:
        token = await anyio.to_thread.run_sync(self._sessions.start, who, f"{self._origin}/mcp")
        target = after if NEXT_PATH.match(after) else "/console"
        response = RedirectResponse(target, status_code=303, headers=security_headers(
            "default-src 'none'; frame-ancestors 'none'"))
        response.set_cookie(SESSION_COOKIE, token, max_age=int(SESSION_TTL.total_seconds()),
                            httponly=True, samesite="strict", path=COOKIE_PATH,
                            secure=self._secure(request))
        return response

    def _sign_in_form(self, request: Request, error: str | None = None, notice: str | None = None,
                      status: int = 200, after: str = "") -> Response:
        csrf = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(32)
        response = sign_in_page(csrf, error, notice, status,
                                after if NEXT_PATH.match(after) else "")
        self._cookie(request, response, LOGIN_CSRF_COOKIE, csrf)
        return response

    def _csrf(self, request: Request) -> str:
        """The session's CSRF value: an HMAC of its token, so nothing more is stored."""
        return self._bearer.mac("csrf:" + request.cookies.get(SESSION_COOKIE, ""))

    def _cookie(self, request: Request, response: Response, name: str, value: str) -> None:
        response.set_cookie(name, value, max_age=int(SESSION_TTL.total_seconds()), httponly=True,
                            samesite="strict", path=COOKIE_PATH, secure=self._secure(request))

    def _secure(self, request: Request) -> bool:
        return request.url.scheme == "https" or self._origin.startswith("https://")


def console_setup(app: Container, failures: FailedSignIns | None = None,
                  ) -> tuple[ConsoleBearer, list[BaseRoute]]:
    """The bearer check for the middleware and the /console routes. The signing secret is
    MEMSPACE_UPLOAD_SECRET when set (needed behind several replicas), else one per process."""
    sessions = console_sessions(app)
    bearer = ConsoleBearer(sessions, upload_secret(app.settings) or secrets.token_bytes(32))
    return bearer, Console(app, sessions, bearer, failures).routes()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
