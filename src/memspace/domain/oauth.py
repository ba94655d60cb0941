"""OAuth 2.1 records and the storage port behind them (docs/oauth.md).

A person signs in on the consent page as an API key's identity (pasting the key, or a one-time
login link that stands for a key made for it) and approves a client. That approval starts a
*family*: the spaces granted, the key they were granted as, the client, the resource (audience).
Every credential the approval yields — the authorization code, each access token, each refresh
token — is a `FamilyToken` of that family, stored as a SHA-256 only. Codes and refresh tokens
are single use: using one marks it used and issues the next tokens in one step, and presenting a
used one again revokes the whole family (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1 refresh rotation).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.models import Access


class TokenKind(enum.StrEnum):
    CODE = "code"
    ACCESS = "access"
    REFRESH = "refresh"


@dataclass(frozen=True)
class OAuthClient:
    """A dynamically registered public client (RFC 7591): no secret, PKCE on every request."""

    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    created_at: datetime
    metadata: str  # the registered metadata as JSON, echoed back to the client


@dataclass(frozen=True)
class LoginLink:
    """A one-time way to sign in on the consent page as `key_id`, without ever seeing the key."""

    sha256: str
    key_id: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None


@dataclass(frozen=True)
class TokenFamily:
    """One approval: what was granted, as whom, to which client, for which resource."""

    id: str
    client_id: str
    key_id: str
    grants: dict[str, Access]  # space id -> access; never more than the key had at consent
    resource: str
    redirect_uri: str
    code_challenge: str
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class FamilyToken:
    sha256: str
    family_id: str
    kind: TokenKind
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None


class OAuthStore(Protocol):
    """Clients, login links, token families and their tokens. Implemented by both stores."""

    def save_client(self, client: OAuthClient) -> None: ...

    def get_client(self, client_id: str) -> OAuthClient | None: ...

    def list_clients(self) -> list[OAuthClient]: ...

    def save_login_link(self, link: LoginLink) -> None: ...

    def redeem_login_link(self, sha256: str, at: datetime) -> LoginLink | None:
        """Marks the link used and returns it, if it exists, is unused and has not expired."""
        ...

    def start_family(self, family: TokenFamily, code: FamilyToken) -> None: ...

    def get_token(self, sha256: str) -> tuple[FamilyToken, TokenFamily] | None: ...

    def use_token(self, sha256: str, at: datetime, issue: list[FamilyToken]) -> bool:
        """Atomically: if the token is unused and its family not revoked, mark it used and
        store `issue`; returns False (storing nothing) when it was already used or revoked."""
        ...

    def revoke_family(self, family_id: str, at: datetime) -> None: ...

    def purge_tokens(self, expired_before: datetime) -> int:
        """Deletes codes and tokens that expired before then; returns how many."""
        ...

    def revoke_client(self, client_id: str, at: datetime) -> int:
        """Revokes every family of the client; returns how many were still live."""
        ...

    def list_families(self) -> list[TokenFamily]: ...
