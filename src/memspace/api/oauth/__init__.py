"""OAuth 2.1 beside API keys (docs/oauth.md): discovery, registration, consent, tokens, revocation.

What comes from the MCP SDK and what is memspace's own, and why:
- SDK: the provider interface (provider.py implements it), the metadata models and handlers
  (RFC 8414, RFC 9728), and the /authorize and /token handlers — request parsing, the PKCE S256
  check, redirect_uri binding and RFC 6749 error answers are the parts most easily got subtly
  wrong, and the SDK's are tested against its own client.
- Own: /register, because the SDK's issues a client secret unless asked not to and memspace
  registers public clients only; /revoke, because the SDK's requires a `client_secret` field
  that public clients do not send; the consent page, which the SDK leaves to the server; and
  the bearer check, which stays the ApiKeyMiddleware (api/auth.py) because keys and OAuth
  tokens share one `Authorization` header and the SDK's RequireAuthMiddleware knows only OAuth.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.routes import build_metadata
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Route, request_response
from starlette.types import ASGIApp

from memspace.api.oauth.authorize import SafeAuthorization, TokenTarget
from memspace.api.oauth.consent import ConsentPage
from memspace.api.oauth.handlers import Registration, Revocation
from memspace.api.oauth.login_link import LOGIN_PATH, LoginLinkPage
from memspace.api.oauth.provider import CONSENT_PATH, MemspaceProvider
from memspace.api.oauth.signing import Signer
from memspace.api.rate_limit import FailedSignIns, RateLimiter
from memspace.services.access import OAuthService
from memspace.startup.adapters import upload_secret
from memspace.startup.container import Container
from memspace.surfaces.oauth import oauth_off_reason

log = logging.getLogger(__name__)
PRM_PATH = "/.well-known/oauth-protected-resource"
# Client metadata is a few hundred bytes; every field is bounded again in services/access/oauth_rules.
REGISTRATION_BODY_LIMIT = 64 * 1024


@dataclass(frozen=True)
class ProtectedResource:
    """What the bearer check needs: whom to ask about tokens, and what to name on a 401."""

    oauth: OAuthService
    resource: str  # this server's /mcp: the audience every token must carry
    metadata_url: str


def _browser_callable(app: ASGIApp, methods: list[str],
                      limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> ASGIApp:
    """Token, registration and revocation are fetched by browser-based clients too."""
    limited = RequestBodyLimitMiddleware(app, limit)
    return CORSMiddleware(limited, allow_origins="*", allow_methods=methods,
                          allow_headers=["mcp-protocol-version"])


def oauth_setup(container: Container, failures: FailedSignIns | None = None,
                ) -> tuple[ProtectedResource, list[BaseRoute]] | None:
    """The routes and the resource, or None when the public URL cannot be an OAuth issuer
    (RFC 8414 wants https; loopback http is allowed for local use). Keys work either way."""
    origin = container.settings.public_origin
    off = oauth_off_reason(origin)
    if off is not None:
        log.warning("%s", off)
        return None
    metadata = build_metadata(AnyHttpUrl(origin), None, ClientRegistrationOptions(enabled=True),
                              RevocationOptions(enabled=True))
    metadata.token_endpoint_auth_methods_supported = ["none"]
    metadata.revocation_endpoint_auth_methods_supported = ["none"]
    metadata.authorization_response_iss_parameter_supported = True
    issuer = str(metadata.issuer)
    resource = f"{origin}/mcp"
    signer = Signer(upload_secret(container.settings) or secrets.token_bytes(32))
    provider = MemspaceProvider(container.oauth, signer, issuer, resource)
    consent = ConsentPage(container.oauth, container.access, signer, issuer, resource, failures)
    registrations = RateLimiter(container.settings.auth_failure_limit)
    login = LoginLinkPage(container.oauth, signer, issuer)
    prm = ProtectedResourceMetadataHandler(ProtectedResourceMetadata(
        resource=AnyHttpUrl(resource), authorization_servers=[AnyHttpUrl(issuer)],
        resource_name="memspace"))
    clients = ClientAuthenticator(provider)
    token = TokenHandler(provider, clients)
    routes: list[BaseRoute] = [
        Route(PRM_PATH, _browser_callable(request_response(prm.handle), ["GET", "OPTIONS"]),
              methods=["GET", "OPTIONS"]),
        Route(f"{PRM_PATH}/mcp", _browser_callable(request_response(prm.handle), ["GET", "OPTIONS"]),
              methods=["GET", "OPTIONS"]),
        Route("/.well-known/oauth-authorization-server",
              _browser_callable(request_response(MetadataHandler(metadata).handle), ["GET", "OPTIONS"]),
              methods=["GET", "OPTIONS"]),
        Route("/authorize", RequestBodyLimitMiddleware(
            request_response(SafeAuthorization(AuthorizationHandler(provider), issuer).handle),
            DEFAULT_MAX_REQUEST_BODY_SIZE), methods=["GET", "POST"]),
        Route(CONSENT_PATH, consent.show, methods=["GET"]),
        Route(CONSENT_PATH, consent.submit, methods=["POST"]),
        Route(LOGIN_PATH, login.show, methods=["GET"]),
        Route(LOGIN_PATH, login.submit, methods=["POST"]),
        Route("/token", _browser_callable(request_response(TokenTarget(token, resource).handle),
                                          ["POST", "OPTIONS"]),
              methods=["POST", "OPTIONS"]),
        Route("/register", _browser_callable(
            request_response(Registration(container.oauth, registrations).handle),
            ["POST", "OPTIONS"],
            REGISTRATION_BODY_LIMIT),
            methods=["POST", "OPTIONS"]),
        Route("/revoke", _browser_callable(
            request_response(Revocation(container.oauth).handle), ["POST", "OPTIONS"]),
            methods=["POST", "OPTIONS"]),
    ]
    return ProtectedResource(container.oauth, resource, f"{origin}{PRM_PATH}/mcp"), routes
