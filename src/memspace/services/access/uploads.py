"""Upload tickets: how the upload view sends a file over REST without ever holding an API key.

An MCP Apps view cannot read the key its host sends, and a file does not belong in the
model's context. So the view asks for a ticket through MCP (where the host authenticates it
with the key), then POSTs the file to /v1/documents with `Authorization: Bearer <ticket>`.

A ticket is `mst_<payload>.<signature>`: the payload names the key, one space and an expiry,
the signature is HMAC-SHA256 with the server's upload secret. Redeeming it re-reads the key,
so revoking the key or its grant stops its tickets at once; the principal it yields can write
that one space and see no other. The HTTP layer accepts tickets on the upload route only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from memspace.domain.errors import Forbidden, Unauthenticated
from memspace.domain.ports import Clock
from memspace.domain.space_ports import KeyStore
from memspace.services.access.access import AccessService, Principal

TICKET_PREFIX = "mst_"
# From the click on "Upload" to the first byte of the POST is a second or two; five minutes
# also covers a slow host round trip. Only the start of the request is checked, so a long
# upload of a large file is not cut off.
TICKET_TTL = timedelta(minutes=5)


@dataclass(frozen=True)
class UploadTicket:
    token: str
    space: str
    expires_at: datetime


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class UploadTickets:
    """Issues and redeems upload tickets; `secret` must be shared by every replica."""

    def __init__(self, store: KeyStore, access: AccessService, clock: Clock,
                 secret: bytes | None = None, ttl: timedelta = TICKET_TTL) -> None:
        self._store = store
        self._access = access
        self._clock = clock
        self._secret = secret or secrets.token_bytes(32)
        self._ttl = ttl

    def issue(self, principal: Principal, space: str | None = None) -> UploadTicket:
        """A ticket to upload into `space` (resolved as any call: argument, active, default).

        Raises:
            NotFound / Forbidden: as for any write to that space (a read grant cannot upload).
        """
        target = self._access.resolve(principal, space, write=True)
        if principal.key_id is None:
            raise Forbidden("the local operator uploads with `memspace import FILE`, not a ticket")
        expires = self._clock.now() + self._ttl
        payload = _b64(json.dumps(
            {"k": principal.key_id, "s": target.space.id, "e": int(expires.timestamp())},
            separators=(",", ":")).encode())
        token = f"{TICKET_PREFIX}{payload}.{self._sign(payload)}"
        return UploadTicket(token, target.space.slug, expires)

    def redeem(self, token: str) -> Principal:
        """The principal a ticket stands for: its key, narrowed to the ticket's one space.

        Raises:
            Unauthenticated: malformed, forged, expired, or its key or grant is gone.
        """
        body = token.removeprefix(TICKET_PREFIX)
        payload, _, signature = body.partition(".")
        if not hmac.compare_digest(signature.encode(), self._sign(payload).encode()):
            raise Unauthenticated(
                "upload ticket not valid here (malformed, or signed by another server: replicas "
                "must share MEMSPACE_UPLOAD_SECRET); ask the upload view for a new one"
            )
        try:
            claims = json.loads(_unb64(payload))
            key_id, space_id, expires = str(claims["k"]), str(claims["s"]), int(claims["e"])
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise Unauthenticated("malformed upload ticket") from exc
        if self._clock.now().timestamp() > expires:
            raise Unauthenticated("upload ticket expired; ask the upload view for a new one")
        key = self._store.get_key(key_id)
        if key is None or key.revoked_at is not None:
            raise Unauthenticated("the API key behind this upload ticket was revoked")
        access = key.grants.get(space_id)
        if access is None or not access.can_write:
            raise Unauthenticated("the API key behind this upload ticket may no longer write that space")
        return Principal(name=key.name, key_id=key.id, grants={space_id: access},
                         default_space_id=space_id, active_space_id=space_id)

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode(), hashlib.sha256).digest())
