"""CORS for the one route a view calls directly from the browser: POST /v1/documents.

The upload view runs in the host's sandboxed iframe, on an origin the server cannot know in
advance (a per-conversation sandbox domain, or the opaque origin "null"). It sends the file
with an upload ticket in the `Authorization` header, never a cookie, so the ticket is the whole
credential and any origin may make that one request. Every other route sends no CORS headers:
browsers keep them same-origin.
"""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

UPLOAD_PATH = "/v1/documents"


class UploadCors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.cors = CORSMiddleware(app, allow_origins=["*"], allow_methods=["POST"],
                                   allow_headers=["authorization", "content-type"], max_age=600)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == UPLOAD_PATH:
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)
