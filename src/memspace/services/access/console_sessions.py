"""Browser sessions of the console (/console, docs/operations.md "Console sessions").

A session is a server-side record: a token family of the built-in `memspace-console` client in
the OAuth store (so both stores keep it, `memspace oauth tokens` lists it and `memspace oauth
revoke` ends it), holding one session token whose SHA-256 only is stored. The browser holds the
token in an HttpOnly cookie and never the key. Every use re-reads the session and the key
(AccessService.delegated): signing out revokes the family and revoking the key ends every
session made with it, both on the next request.

The session token is stored as an `access` token of its family but is never accepted as a
bearer: the bearer check routes by prefix and `mss_` is not one it takes, and the OAuth token
endpoint redeems only codes and refresh tokens.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NoReturn

from memspace.domain.errors import InvalidInput, NotFound, Unauthenticated
from memspace.domain.oauth import FamilyToken, LoginLink, OAuthClient, OAuthStore, TokenFamily, TokenKind
from memspace.domain.ports import Clock
from memspace.services.access.access import AccessService, Principal
from memspace.services.access.admin import OPERATOR, AdminService
from memspace.services.access.oauth import LINK_PREFIX, LOGIN_LINK_TTL, CreatedLoginLink
from memspace.services.shared import AuditLog, new_id

CONSOLE_CLIENT = "memspace-console"
SESSION_PREFIX = "mss_"
# The page's short-lived bearer for /mcp (api/console.py signs it; api/auth.py routes it there).
BEARER_PREFIX = "msb_"
# A working day: a teammate signs in in the morning and is not asked again before evening.
# Revocation does not wait for it (every request re-reads the session and the key).
SESSION_TTL = timedelta(hours=8)


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ConsoleSession:
    family_id: str
    principal: Principal
    expires_at: datetime


class ConsoleSessions:
    def __init__(self, store: OAuthStore, access: AccessService, admin: AdminService,
                 clock: Clock, audit: AuditLog | None = None) -> None:
        self._store = store
        self._access = access
        self._admin = admin
        self._clock = clock
        self._audit = audit

    def start(self, principal: Principal, resource: str) -> str:
        """A new session for the key behind `principal`; returns its token (shown once)."""
        if principal.key_id is None:
            raise Unauthenticated("only an API key can sign in to the console")
        self._ensure_client()
        now, token = self._clock.now(), f"{SESSION_PREFIX}{secrets.token_urlsafe(32)}"
        family = TokenFamily(new_id(), CONSOLE_CLIENT, principal.key_id, dict(principal.grants),
                             resource, "", "", now)
        self._store.start_family(family, FamilyToken(digest(token), family.id, TokenKind.ACCESS,
                                                     now, now + SESSION_TTL))
        self._record(f"key {principal.key_id}", "console.sign_in", f"family {family.id}")
        return token

    def session(self, token: str) -> ConsoleSession:
        """The live session behind a cookie's token.

        Raises:
            Unauthenticated: unknown, expired, signed out, or its key revoked.
        """
        if not token.startswith(SESSION_PREFIX):
            _ended()
        return self.by_digest(digest(token))

    def by_digest(self, sha256: str) -> ConsoleSession:
        """As `session`, from the stored digest (what a session's bearer names)."""
        found = self._store.get_token(sha256)
        if found is None:
            return _ended()
        token, family = found
        if (family.client_id != CONSOLE_CLIENT or token.kind is not TokenKind.ACCESS
                or family.revoked_at is not None or token.expires_at <= self._clock.now()):
            _ended()
        # All the key holds now, not what it held at sign-in: the console has the key's rights.
        return ConsoleSession(family.id, self._access.delegated(family.key_id), token.expires_at)

    def end(self, token: str) -> None:
        """Sign out: the session's family is revoked; an unknown token is ignored."""
        found = self._store.get_token(digest(token))
        if found is not None and found[1].client_id == CONSOLE_CLIENT:
            self._store.revoke_family(found[1].id, self._clock.now())
            self._record(f"key {found[1].key_id}", "console.sign_out", f"family {found[1].id}")

    def link_for_key(self, name_or_prefix: str, ttl: timedelta = LOGIN_LINK_TTL) -> CreatedLoginLink:
        """A one-time link that signs a browser in as an existing key (by name or prefix).

        Raises:
            NotFound: no live key of that name or prefix.
            InvalidInput: several live keys share the name, or the lifetime is not positive.
        """
        if ttl <= timedelta(0):
            raise InvalidInput("a login link must stay valid for at least one minute "
                               "(e.g. --minutes 15)")
        live = [k for k in self._admin.list_keys() if k.revoked_at is None]
        found = [k for k in live if k.prefix == name_or_prefix] or \
            [k for k in live if k.name == name_or_prefix]
        if not found:
            raise NotFound(f"no live key named '{name_or_prefix}'; `memspace key list` shows them")
        if len(found) > 1:
            raise InvalidInput(f"{len(found)} live keys are named '{name_or_prefix}'; pass one's "
                               "prefix instead (`memspace key list`), e.g. --key "
                               f"{found[0].prefix}")
        key, now = found[0], self._clock.now()
        code = f"{LINK_PREFIX}{secrets.token_urlsafe(32)}"
        self._store.save_login_link(LoginLink(digest(code), key.id, now, now + ttl))
        self._record(OPERATOR, "console.login_link", key.prefix, f"valid until {now + ttl}")
        return CreatedLoginLink(code, key, now + ttl)

    def _ensure_client(self) -> None:
        # The family table names a client; this one has no redirect URI, so no authorization
        # request can ever be made with it.
        if self._store.get_client(CONSOLE_CLIENT) is None:
            self._store.save_client(OAuthClient(CONSOLE_CLIENT, "memspace console", (),
                                                self._clock.now(), "{}"))

    def _record(self, actor: str, action: str, target: str, detail: str = "") -> None:
        if self._audit is not None:
            self._audit.record(actor, action, target=target, detail=detail)


def _ended() -> NoReturn:
    raise Unauthenticated("this console session has ended (signed out, expired, or its key was "
                          "revoked); sign in again")
