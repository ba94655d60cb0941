"""/authorize in front of the SDK's handler: an error is answered on a page, never by an
automatic redirect.

Registration is open, so a registered redirect URI proves nothing about whom it belongs to: an
invalid request (`response_type=token`, an empty or malformed `code_challenge`, a foreign
`resource`) redirected there automatically would make this server an open redirector (RFC 9700
§4.11.2). The SDK redirects such errors whenever client and redirect URI match; this wrapper
turns each such redirect into a page that says what was wrong and offers the way back as a link
the person may follow (with `iss`, RFC 9207). Only the consent page itself redirects on its own,
after the person has seen where they are sent and chosen Approve or Deny.

/token likewise refuses a foreign `resource` (RFC 8707 `invalid_target`) before the SDK's
handler, which would ignore it.
"""

from __future__ import annotations

from html import escape
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.token import TokenHandler
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memspace.api.oauth.consent import render_page
from memspace.services.access import same_resource

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def with_iss(location: str, issuer: str) -> str:
    """The redirect URI with `iss` added to its query (RFC 9207), unless it is there already."""
    parts = urlsplit(location)
    query = parse_qs(parts.query, keep_blank_values=True)
    if "iss" not in query:
        query["iss"] = [issuer]
    return urlunsplit(parts._replace(query=urlencode(query, doseq=True)))


class SafeAuthorization:
    def __init__(self, handler: AuthorizationHandler, issuer: str) -> None:
        self._handler = handler
        self._issuer = issuer

    async def handle(self, request: Request) -> Response:
        response = await self._handler.handle(request)
        location = response.headers.get("location", "")
        if response.status_code != 302 or "error" not in parse_qs(urlsplit(location).query):
            return response
        return self._error_page(with_iss(location, self._issuer))

    @staticmethod
    def _error_page(location: str) -> Response:
        parts = urlsplit(location)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        where = parts.netloc or f"{parts.scheme}:"
        body = (f"<p class=error>The application's sign-in request was refused: "
                f"<code>{escape(query.get('error', ''))}</code>: "
                f"{escape(query.get('error_description', ''))}</p>"
                f"<p>memspace does not send you back automatically. If you trust "
                f"<b>{escape(where)}</b>, you can tell the application:</p>"
                f"<p><a rel=noreferrer href=\"{escape(location)}\">Return to {escape(where)}</a></p>")
        return render_page("Request refused", body, 400)


class TokenTarget:
    """/token in front of the SDK's handler: a `resource` (RFC 8707) other than this server's
    /mcp is refused with `invalid_target` instead of silently ignored."""

    def __init__(self, handler: TokenHandler, resource: str) -> None:
        self._handler = handler
        self._resource = resource

    async def handle(self, request: Request) -> Response:
        form = await request.form()  # Starlette keeps it; the SDK's handler reads the same form
        wanted = form.get("resource")
        if isinstance(wanted, str) and wanted and not same_resource(wanted, self._resource):
            return JSONResponse({"error": "invalid_target", "error_description":
                                 f"this server only issues tokens for {self._resource}"},
                                status_code=400, headers=NO_STORE)
        answer: Response = await self._handler.handle(request)
        return answer
