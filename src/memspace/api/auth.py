"""API keys and OAuth access tokens checked in front of /mcp and /v1, as plain ASGI middleware.

Both arrive in the one `Authorization: Bearer` header, which the SDK's bearer middleware would
take for OAuth only; so they are told apart here by prefix (msk_ key, msa_ OAuth token, mst_
upload ticket) before MCP sees the request. A bad one gets 401 with a `WWW-Authenticate` that
says why and, when OAuth is on, where to discover how to sign in (RFC 9728 resource_metadata);
a good one leaves its Principal in the ASGI state for tools and routes to read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from memspace.api.console import ConsoleBearer
    from memspace.api.oauth import ProtectedResource

from memspace.api.rate_limit import FailedSignIns, RateLimiter
from memspace.domain.errors import MemspaceError, Unauthenticated
from memspace.services.access import (
    ACCESS_PREFIX,
    BEARER_PREFIX,
    TICKET_PREFIX,
    AccessService,
    Principal,
    UploadTickets,
)

# Where the caller is left for routes and tools (surfaces/identity.py).
from memspace.surfaces.identity import (
    PRINCIPAL_STATE_KEY,
    RATE_LIMITED_STATE_KEY,
    current_principal,
    current_wait,
)

PROTECTED_PREFIXES = ("/mcp", "/v1/")
# The one request an upload ticket authorises (services/access/uploads.py says why tickets exist).
TICKET_ROUTE = ("POST", "/v1/documents")


def presented_key(headers: dict[bytes, bytes]) -> str | None:
    """The key from `Authorization: Bearer …`, else `X-Api-Key`."""
    auth = headers.get(b"authorization", b"").decode("latin-1").strip()
    if auth:
        scheme, _, token = auth.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
        return auth  # a malformed header is reported as a malformed key, not ignored
    key = headers.get(b"x-api-key", b"").decode("latin-1").strip()
    return key or None


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, access: AccessService, tickets: UploadTickets,
                 oauth: ProtectedResource | None = None, limiter: RateLimiter | None = None,
                 failures: FailedSignIns | None = None, console: ConsoleBearer | None = None) -> None:
        self.console = console  # the console page's bearer (api/console.py), on /mcp only
        self.limiter = limiter  # MEMSPACE_RATE_LIMIT (api/rate_limit.py)
        self.failures = failures  # MEMSPACE_AUTH_FAILURE_LIMIT (api/rate_limit.py)
        self.app = app
        self.access = access
        self.tickets = tickets
        self.oauth = oauth  # OAuth access tokens (api/oauth) beside keys, when the server issues them

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(PROTECTED_PREFIXES):
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "OPTIONS":  # CORS preflight carries no credentials
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw = presented_key(headers)
        address = str((scope.get("client") or ("unknown",))[0])
        wait = self.failures.blocked(address, raw) if raw and self.failures is not None else 0
        if wait:
            await _reject(send, 429, "too many failed sign-ins from this address or for this key; "
                          f"retry after {wait} s", retry_after=wait)
            return
        try:
            principal = await anyio.to_thread.run_sync(self._identify, scope, raw)
        except Unauthenticated as exc:
            if raw is not None and self.failures is not None:
                self.failures.failed(address, raw)
            await _reject(send, 401, exc.message, self.oauth.metadata_url if self.oauth else None,
                          presented=raw is not None)
            return
        except MemspaceError as exc:
            await _reject(send, 503, exc.message)
            return
        scope.setdefault("state", {})[PRINCIPAL_STATE_KEY] = principal
        # An OAuth token draws on the bucket of the key that approved it: registering another
        # client must not open a fresh one.
        wait = self.limiter.take(principal.key_id or principal.via or principal.name) \
            if self.limiter is not None else 0
        if wait and not scope["path"].startswith("/mcp"):
            await _reject(send, 429, f"too many requests for this key: at most MEMSPACE_RATE_LIMIT "
                          f"a minute; retry after {wait} s", retry_after=wait)
            return
        if wait:  # a tool call answers `rate_limited` itself (mcp/identity.py)
            scope["state"][RATE_LIMITED_STATE_KEY] = wait
        token = current_principal.set(principal)
        waiting = current_wait.set(wait)
        try:
            await self.app(scope, receive, send)
        finally:
            current_wait.reset(waiting)
            current_principal.reset(token)

    def _identify(self, scope: Scope, raw: str | None) -> Principal:
        """An API key or OAuth access token anywhere below the protected prefixes; an upload
        ticket on its route only; a console page's bearer on /mcp only."""
        if self.console is not None and (raw or "").startswith(BEARER_PREFIX):
            if not scope["path"].startswith("/mcp"):
                raise Unauthenticated("a console bearer is for /mcp only; the REST API under /v1 "
                                      "takes an API key")
            return self.console.authenticate(raw or "")
        if self.oauth is not None and (raw or "").startswith(ACCESS_PREFIX):
            if not scope["path"].startswith("/mcp"):
                # The audience is the resource the token names (/mcp), and nothing else: the
                # REST API under /v1 is for API keys (docs/security.md, "Audience").
                raise Unauthenticated(f"this OAuth access token is for {self.oauth.resource} "
                                      "only; the REST API under /v1 takes an API key")
            return self.oauth.oauth.authenticate(raw or "", self.oauth.resource)
        if not (raw or "").startswith(TICKET_PREFIX):
            return self.access.authenticate(raw)
        if (scope.get("method"), scope["path"]) != TICKET_ROUTE:
            raise Unauthenticated("an upload ticket only authorises POST /v1/documents; send the API key")
        return self.tickets.redeem(raw or "")


async def _reject(send: Send, status: int, message: str, metadata_url: str | None = None,
                  presented: bool = True, retry_after: int = 0) -> None:
    code = {401: "unauthenticated", 429: "rate_limited"}.get(status, "unavailable")
    body = json.dumps({"error": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after:
        headers.append((b"retry-after", str(retry_after).encode()))
    if status == 401:
        safe = message.replace('"', "'")
        # RFC 6750 §3.1: a request with no credentials at all gets no error code.
        why = f', error="invalid_token", error_description="{safe}"' if presented else ""
        headers.append(
            (b"www-authenticate",
             (f'Bearer realm="memspace"{why}'
              # RFC 9728 §5.1: where an OAuth client discovers how to get a token
              + (f', resource_metadata="{metadata_url}"' if metadata_url else "")).encode())
        )
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
