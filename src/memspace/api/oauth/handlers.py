"""/register and /revoke, written here rather than taken from the SDK (routes.py says why)."""

from __future__ import annotations

import anyio.to_thread
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.shared.auth import OAuthClientMetadata
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memspace.api.oauth.provider import client_info
from memspace.api.rate_limit import RateLimiter
from memspace.domain.errors import MemspaceError
from memspace.services.access import OAuthService, check_metadata_bounds

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status,
                        headers=NO_STORE)


class Registration:
    """RFC 7591 dynamic registration of public clients only.

    RFC 7591 §2 defaults an omitted token_endpoint_auth_method to client_secret_basic, and §3.2.1
    lets the server replace requested values: memspace always answers `none` and issues no
    secret, so every client is public and PKCE is what binds a code to whoever asked for it.
    """

    def __init__(self, oauth: OAuthService, limiter: RateLimiter | None = None) -> None:
        self._oauth = oauth
        # Registrations a minute per client address: each stores a client, and each client
        # would otherwise be a fresh start for whoever registers it.
        self._limiter = limiter

    async def handle(self, request: Request) -> Response:
        address = request.client.host if request.client else "unknown"
        if self._limiter is not None and (wait := self._limiter.take(f"register {address}")):
            return JSONResponse({"error": "slow_down", "error_description": "too many client "
                                 f"registrations from this address; retry after {wait} s"},
                                status_code=429, headers={**NO_STORE, "Retry-After": str(wait)})
        try:
            metadata = OAuthClientMetadata.model_validate_json(await request.body())
        except ValidationError as exc:
            return _error("invalid_client_metadata", f"the registration request is not valid "
                          f"client metadata (RFC 7591 §2): {exc.errors()[0]['msg']}")
        if "authorization_code" not in metadata.grant_types or "code" not in metadata.response_types:
            return _error("invalid_client_metadata",
                          "register grant_types with authorization_code and response_types with code")
        grant_types = [g for g in metadata.grant_types if g in ("authorization_code", "refresh_token")]
        record = metadata.model_dump(mode="json", exclude_none=True)
        record.update(token_endpoint_auth_method="none", grant_types=grant_types,
                      response_types=["code"])
        uris = [str(u) for u in metadata.redirect_uris or []]
        try:
            check_metadata_bounds(metadata.client_name or "", record)
        except MemspaceError as exc:
            return _error("invalid_client_metadata", exc.message)
        try:
            client = await anyio.to_thread.run_sync(
                self._oauth.register, metadata.client_name or "", uris, record)
        except MemspaceError as exc:
            return _error("invalid_redirect_uri", exc.message)
        return PydanticJSONResponse(content=client_info(client), status_code=201, headers=NO_STORE)


class Revocation:
    """RFC 7009 for public clients: `client_id` identifies the caller (there is no secret), a
    token of another client or an unknown one is ignored, and any token revokes its family."""

    def __init__(self, oauth: OAuthService) -> None:
        self._oauth = oauth

    async def handle(self, request: Request) -> Response:
        form = await request.form()
        token, client_id = form.get("token"), form.get("client_id")
        if not isinstance(token, str) or not token or not isinstance(client_id, str) or not client_id:
            return _error("invalid_request", "send token and client_id as form fields")
        await anyio.to_thread.run_sync(self._oauth.revoke_token, token, client_id)
        return Response(status_code=200, headers=NO_STORE)
