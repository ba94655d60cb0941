"""OAuth 2.1 use cases: clients, sign-in on the consent page, codes, token rotation, revocation.

Every credential is random (`secrets`), shown once and stored as its SHA-256 (domain/oauth.py
says how codes and tokens hang together). What a token may do is decided by
AccessService.delegated from the key the person signed in as: never more than that key holds.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memspace.domain.errors import InvalidInput, NotFound, Unauthenticated
from memspace.domain.models import Access, ApiKey
from memspace.domain.oauth import (
    FamilyToken,
    LoginLink,
    OAuthClient,
    OAuthStore,
    TokenFamily,
    TokenKind,
)
from memspace.domain.ports import Clock
from memspace.domain.text import counted
from memspace.services.access.access import AccessService, Principal
from memspace.services.access.admin import OPERATOR, AdminService
from memspace.services.access.oauth_rules import (
    check_redirect_uri,
    check_registration,
    redirect_matches,
    same_resource,
)
from memspace.services.shared import AuditLog, new_id

__all__ = ["OAuthService", "check_redirect_uri", "redirect_matches", "same_resource"]

# Access tokens are bearer credentials checked on every call; a short life bounds what a leaked
# one can do, and a client refreshes silently. Refresh tokens rotate on each use.
ACCESS_TTL = timedelta(minutes=30)
REFRESH_TTL = timedelta(days=30)
# RFC 6749 §4.1.2: "A maximum authorization code lifetime of 10 minutes is RECOMMENDED".
CODE_TTL = timedelta(minutes=5)
LOGIN_LINK_TTL = timedelta(minutes=15)
# Expired codes and tokens are deleted on each redemption once this much older than their
# expiry: a day in which a replayed one still answers "expired" rather than "unknown".
PURGE_AFTER = timedelta(days=1)

ACCESS_PREFIX, REFRESH_PREFIX, CODE_PREFIX, LINK_PREFIX = "msa_", "msr_", "msc_", "msl_"
LINK_IN_TEXT = re.compile(r"msl_[A-Za-z0-9_-]{32,64}")
def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _mint(prefix: str) -> str:
    return f"{prefix}{secrets.token_urlsafe(32)}"


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int


@dataclass(frozen=True)
class CreatedLoginLink:
    code: str  # shown once
    key: ApiKey
    expires_at: datetime


class OAuthService:
    """The authorization server's decisions; the HTTP layer (api/oauth) only translates."""

    def __init__(self, store: OAuthStore, access: AccessService, admin: AdminService,
                 clock: Clock, audit: AuditLog | None = None) -> None:
        self._audit = audit  # approvals, revocations and login links (services/shared/audit.py)
        self._store = store
        self._access = access
        self._admin = admin
        self._clock = clock

    # -- clients ----------------------------------------------------------------------------

    def register(self, name: str, redirect_uris: list[str], metadata: dict[str, object]) -> OAuthClient:
        """A public client (no secret). Raises InvalidInput for a redirect URI we will not use."""
        check_registration(name, redirect_uris, metadata)
        client_id, now = new_id(), self._clock.now()
        record = {**metadata, "client_id": client_id, "client_id_issued_at": int(now.timestamp())}
        client = OAuthClient(client_id, name.strip() or "unnamed client", tuple(redirect_uris),
                             now, json.dumps(record))
        self._store.save_client(client)
        self._record(f"client {client_id}", "oauth.register", f"client {client_id}",
                     f"name {client.name}; redirect URIs " + ", ".join(redirect_uris))
        return client

    def client(self, client_id: str) -> OAuthClient | None:
        return self._store.get_client(client_id)

    def clients(self) -> list[OAuthClient]:
        return self._store.list_clients()

    # -- signing in -------------------------------------------------------------------------

    def create_login_link(self, name: str, grants: dict[str, Access],
                          ttl: timedelta = LOGIN_LINK_TTL) -> CreatedLoginLink:
        """A key for `name` whose secret nobody ever sees, and a one-time code that signs in as
        it. Raises InvalidInput / NotFound as `memspace key create` does, and InvalidInput for
        a lifetime that is not positive (before anything is made)."""
        if ttl <= timedelta(0):
            raise InvalidInput("a login link must stay valid for at least one minute "
                               "(e.g. --minutes 15)")
        key = self._admin.create_key(name, grants).key
        code, now = _mint(LINK_PREFIX), self._clock.now()
        link = LoginLink(digest(code), key.id, now, now + ttl)
        self._store.save_login_link(link)
        self._record(OPERATOR, "oauth.login_link", key.prefix, f"valid until {link.expires_at}")
        return CreatedLoginLink(code, key, link.expires_at)

    def _record(self, actor: str, action: str, target: str, detail: str = "") -> None:
        if self._audit is not None:
            self._audit.record(actor, action, target=target, detail=detail)

    def sign_in(self, credential: str) -> Principal:
        """Who signs in on the consent page: an API key, or a login link (pasted whole or just
        its code), which is used up here.

        Raises:
            Unauthenticated: the key or link is unknown, revoked, used or expired.
        """
        text = credential.strip()
        found = LINK_IN_TEXT.search(text)
        if found is None:
            return self._access.authenticate(text)
        link = self._store.redeem_login_link(digest(found.group(0)), self._clock.now())
        if link is None:
            raise Unauthenticated(
                "this sign-in link is unknown, was already used or has expired; print a new one "
                "with `memspace login-link`")
        return self.identity(link.key_id)

    def identity(self, key_id: str) -> Principal:
        """The signed-in person: everything their key holds. Raises Unauthenticated if revoked."""
        return self._access.delegated(key_id)

    # -- codes and tokens -------------------------------------------------------------------

    def approve(self, client_id: str, key_id: str, wanted: dict[str, Access], redirect_uri: str,
                code_challenge: str, resource: str) -> str:
        """The consent: returns a one-time authorization code for what was chosen.

        Raises:
            InvalidInput / NotFound / Forbidden: nothing chosen, a space not held, more than held.
        """
        granted = self._access.grantable(self.identity(key_id), wanted)
        now = self._clock.now()
        family = TokenFamily(new_id(), client_id, key_id, granted, resource, redirect_uri,
                             code_challenge, now)
        code = _mint(CODE_PREFIX)
        self._store.start_family(family, FamilyToken(digest(code), family.id, TokenKind.CODE, now,
                                                     now + CODE_TTL))
        self._record(f"key {key_id}", "oauth.approve", f"client {client_id}",
                     f"family {family.id}; grants " + ", ".join(
                         f"{space}:{access.value}" for space, access in granted.items()))
        return code

    def find(self, raw: str, kind: TokenKind) -> tuple[FamilyToken, TokenFamily] | None:
        """A stored code or token of that kind (used or not; the caller decides), any family."""
        found = self._store.get_token(digest(raw))
        return found if found is not None and found[0].kind is kind else None

    def redeem(self, raw: str, kind: TokenKind, client_id: str) -> IssuedTokens:
        """Trades a code or refresh token for a new access + refresh pair, once. A second use
        of the same one revokes its whole family (every token it led to).

        Raises:
            Unauthenticated: unknown, expired, revoked, another client's, or reused.
        """
        found = self.find(raw, kind)
        now = self._clock.now()
        if found is None or found[1].client_id != client_id or found[1].revoked_at is not None:
            raise Unauthenticated(f"this {kind.value} is unknown or was revoked; sign in again")
        token, family = found
        if token.expires_at <= now:
            raise Unauthenticated(f"this {kind.value} has expired; sign in again")
        self._access.delegated(family.key_id, family.grants)  # the key must still be live
        access, refresh = _mint(ACCESS_PREFIX), _mint(REFRESH_PREFIX)
        issue = [FamilyToken(digest(access), family.id, TokenKind.ACCESS, now, now + ACCESS_TTL),
                 FamilyToken(digest(refresh), family.id, TokenKind.REFRESH, now, now + REFRESH_TTL)]
        if not self._store.use_token(token.sha256, now, issue):
            self._store.revoke_family(family.id, now)
            self._record(f"client {client_id}", "oauth.revoke", f"family {family.id}",
                         f"a {kind.value} was used twice")
            raise Unauthenticated(
                f"this {kind.value} was already used, so every token it led to is now revoked "
                "(RFC 9700 §4.14); sign in again")
        self._store.purge_tokens(now - PURGE_AFTER)  # each refresh adds two rows; keep it flat
        self._record(f"client {client_id}", "oauth.token", f"family {family.id}",
                     f"{kind.value} traded for an access and a refresh token")
        return IssuedTokens(access, refresh, int(ACCESS_TTL.total_seconds()))

    def authenticate(self, raw: str, resource: str) -> Principal:
        """The principal behind an access token presented to `resource`.

        Raises:
            Unauthenticated: unknown, expired, revoked, or issued for another resource.
        """
        found = self.find(raw, TokenKind.ACCESS)
        if found is None or found[1].revoked_at is not None:
            raise Unauthenticated("unknown or revoked access token; sign in again")
        token, family = found
        if token.expires_at <= self._clock.now():
            raise Unauthenticated("the access token has expired; refresh it or sign in again")
        if not same_resource(family.resource, resource):
            raise Unauthenticated(
                f"this access token was issued for {family.resource}, not {resource}")
        principal = self._access.delegated(family.key_id, family.grants)
        return replace(principal, via=f"oauth client {family.client_id}")

    def revoke_token(self, raw: str, client_id: str) -> None:
        """RFC 7009: revoking any token of a family revokes the family; unknown ones are ignored."""
        found = self._store.get_token(digest(raw))
        if found is not None and found[1].client_id == client_id:
            self._store.revoke_family(found[1].id, self._clock.now())
            self._record(f"client {client_id}", "oauth.revoke", f"family {found[1].id}",
                         "revoked by its client (RFC 7009)")

    # -- administration (CLI) ---------------------------------------------------------------

    def families(self) -> list[TokenFamily]:
        return self._store.list_families()

    def revoke(self, family_or_client_id: str) -> int:
        """Revokes one family, or every family of a client; returns how many."""
        now = self._clock.now()
        for family in self._store.list_families():
            if family.id == family_or_client_id:
                self._store.revoke_family(family.id, now)
                self._record(OPERATOR, "oauth.revoke", f"family {family.id}")
                return 1
        if self._store.get_client(family_or_client_id) is not None:
            count = self._store.revoke_client(family_or_client_id, now)
            self._record(OPERATOR, "oauth.revoke", f"client {family_or_client_id}",
                         counted(count, "connection"))
            return count
        raise NotFound(f"no OAuth client or token family '{family_or_client_id}'; "
                       "`memspace oauth clients` and `memspace oauth tokens` list them")
