"""The MCP SDK's provider interface over services/access/oauth.py, so the SDK's /authorize and /token
handlers (request parsing, PKCE S256 check, redirect_uri binding, RFC 6749 error shapes) run on
memspace's clients, codes and tokens."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio.to_thread
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
)
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from memspace.api.oauth.signing import Signer
from memspace.domain.errors import MemspaceError
from memspace.domain.oauth import OAuthClient, TokenKind
from memspace.services.access import OAuthService, redirect_matches, same_resource

CONSENT_PATH = "/authorize/consent"
# RFC 7636 §4.2: BASE64URL of a SHA-256 is 43 characters; 43-128 unreserved characters allowed.
CODE_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")


class MemspaceClient(OAuthClientInformationFull):
    """A registered client as the SDK handlers see it, with memspace's redirect and scope rules."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is None:
            # Bind every code to an explicit URI: /token then compares the same string.
            raise InvalidRedirectUriError("send redirect_uri (one of the URIs you registered)")
        if not any(redirect_matches(str(r), str(redirect_uri)) for r in self.redirect_uris or []):
            raise InvalidRedirectUriError(
                f"redirect_uri {redirect_uri} was not registered for this client (loopback "
                "http URIs may differ in port only; every other URI must match exactly)")
        return redirect_uri

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        # What a token may do is chosen on the consent page (spaces and access), not by scope
        # strings: a requested scope is accepted and has no effect.
        return []


def client_info(client: OAuthClient) -> MemspaceClient:
    return MemspaceClient.model_validate(json.loads(client.metadata))


class MemspaceProvider:
    """OAuthAuthorizationServerProvider for the SDK handlers; store calls run off the loop."""

    def __init__(self, oauth: OAuthService, signer: Signer, issuer: str, resource: str) -> None:
        self._oauth = oauth
        self._signer = signer
        self.issuer = issuer
        self.resource = resource

    async def get_client(self, client_id: str) -> MemspaceClient | None:
        client = await anyio.to_thread.run_sync(self._oauth.client, client_id)
        return client_info(client) if client is not None else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        raise NotImplementedError("registration is served by api/oauth/handlers.py")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if not CODE_CHALLENGE.fullmatch(params.code_challenge or ""):
            raise AuthorizeError("invalid_request", "code_challenge must be the BASE64URL of the "
                                 "SHA-256 of your code_verifier (43 characters, RFC 7636 §4.2)")
        if params.resource is not None and not same_resource(params.resource, self.resource):
            raise AuthorizeError("invalid_target",
                                 f"this server only issues tokens for {self.resource}")
        pending = {"c": client.client_id, "r": str(params.redirect_uri), "p": params.code_challenge,
                   "s": params.state}
        return f"{self.issuer.rstrip('/')}{CONSENT_PATH}?request={self._signer.sign('consent', pending)}"

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        found = await anyio.to_thread.run_sync(self._oauth.find, authorization_code, TokenKind.CODE)
        if found is None:
            return None
        token, family = found
        return AuthorizationCode(
            code=authorization_code, scopes=[], expires_at=token.expires_at.timestamp(),
            client_id=family.client_id, code_challenge=family.code_challenge,
            redirect_uri=AnyUrl(family.redirect_uri), redirect_uri_provided_explicitly=True,
            resource=family.resource, subject=family.key_id)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        return await self._redeem(authorization_code.code, TokenKind.CODE, client.client_id)

    async def load_refresh_token(self, client: OAuthClientInformationFull,
                                 refresh_token: str) -> RefreshToken | None:
        found = await anyio.to_thread.run_sync(self._oauth.find, refresh_token, TokenKind.REFRESH)
        if found is None or found[1].revoked_at is not None:
            return None
        token, family = found
        return RefreshToken(token=refresh_token, client_id=family.client_id, scopes=[],
                            expires_at=int(token.expires_at.timestamp()), subject=family.key_id)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull,
                                     refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        return await self._redeem(refresh_token.token, TokenKind.REFRESH, client.client_id)

    async def _redeem(self, raw: str, kind: TokenKind, client_id: str) -> OAuthToken:
        try:
            issued = await anyio.to_thread.run_sync(self._oauth.redeem, raw, kind, client_id)
        except MemspaceError as exc:
            raise TokenError("invalid_grant", exc.message) from exc
        return OAuthToken(access_token=issued.access_token, refresh_token=issued.refresh_token,
                          expires_in=issued.expires_in)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = await anyio.to_thread.run_sync(self._oauth.find, token, TokenKind.ACCESS)
        if found is None:
            return None
        stored, family = found
        return AccessToken(token=token, client_id=family.client_id, scopes=[],
                           expires_at=int(stored.expires_at.timestamp()), resource=family.resource,
                           subject=family.key_id)

    async def revoke_token(self, token: Any) -> None:
        raise NotImplementedError("revocation is served by api/oauth/handlers.py")

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: Any) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "memspace issues tokens through /authorize only")
