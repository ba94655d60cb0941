"""Remembers, for a client of the handshake-era protocol, that its `initialize` declared MCP Apps.

/mcp is served stateless (any replica answers any request), so a client that declared the
extension in `initialize` sends its later `tools/list` with nothing that says so, and would never
be shown the views. When an `initialize` declares it, its answer carries an `Mcp-Session-Id`
that says so, which the protocol has the client send back on every later request. The id holds
no state and grants nothing: it only decides whether the `*_ui` tools are listed (every tool is
callable by name anyway), so any replica reads it the same. Clients of the 2026 protocol declare
their capabilities on every request and need none of this.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memspace.surfaces.identity import APPS_STATE_KEY

SESSION_HEADER = b"mcp-session-id"
APPS_SESSION_PREFIX = "apps-"


class AppsSession:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != "/mcp":
            await self.app(scope, receive, send)
            return
        session = dict(scope["headers"]).get(SESSION_HEADER, b"").decode("latin-1")
        if session.startswith(APPS_SESSION_PREFIX):
            scope.setdefault("state", {})[APPS_STATE_KEY] = True
        if scope["method"] != "POST" or session:
            await self.app(scope, receive, send)
            return
        body, replay = await _buffered(receive)
        if not declares_apps(body):
            await self.app(scope, replay, send)
            return
        token = f"{APPS_SESSION_PREFIX}{secrets.token_hex(16)}".encode()

        async def with_session(message: Message) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                message = {**message,
                           "headers": [*message.get("headers", []), (SESSION_HEADER, token)]}
            await send(message)

        await self.app(scope, replay, with_session)


def declares_apps(body: bytes) -> bool:
    """Whether the request is an `initialize` whose capabilities name MCP Apps with the app MIME
    type (the same test the SDK applies to a 2026-protocol request's capabilities)."""
    if b'"initialize"' not in body:  # the cheap test first: most requests are not one
        return False
    try:
        message: Any = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return False
    params = message.get("params")
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    settings = extensions.get(EXTENSION_ID) if isinstance(extensions, dict) else None
    mime_types = settings.get("mimeTypes") if isinstance(settings, dict) else None
    return isinstance(mime_types, list) and APP_MIME_TYPE in mime_types


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that hands it on as one message."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return b"", receive
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay
