"""Tamper-proof, expiring values the consent page hands to the browser and gets back: the
pending authorization request and the signed-in identity. HMAC-SHA256 (stdlib `hmac`), the
same construction as upload tickets; nothing secret is inside, only nothing may be changed."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any

# Long enough to read the page, sign in and choose spaces; short enough that a copied page
# is useless soon after.
SIGNED_TTL_S = 15 * 60


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def same_text(a: str, b: str) -> bool:
    """Constant-time equality of two strings of any characters. `hmac.compare_digest` raises
    TypeError on a non-ASCII `str`, so a crafted form field or query value would be a 500:
    compare their UTF-8 bytes instead (a surrogate that cannot be encoded is simply unequal)."""
    try:
        return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
    except UnicodeEncodeError:
        return False


class Signer:
    def __init__(self, secret: bytes, ttl_s: int = SIGNED_TTL_S) -> None:
        # Derived, so the consent page and upload tickets never share a key even when one
        # configured secret (MEMSPACE_UPLOAD_SECRET) feeds both.
        self._key = hmac.new(secret, b"memspace oauth consent", hashlib.sha256).digest()
        self._ttl_s = ttl_s

    def sign(self, purpose: str, value: dict[str, Any]) -> str:
        payload = _b64(json.dumps({"p": purpose, "e": int(time.time()) + self._ttl_s, "v": value},
                                  separators=(",", ":")).encode())
        return f"{payload}.{self._mac(payload)}"

    def verify(self, purpose: str, token: str) -> dict[str, Any] | None:
        """The value, or None when the token was altered, expired or made for another purpose."""
        payload, _, mac = token.partition(".")
        if not same_text(mac, self._mac(payload)):
            return None
        try:
            claims = json.loads(_unb64(payload))
        except (ValueError, binascii.Error):
            return None
        if not isinstance(claims, dict) or not isinstance(claims.get("v"), dict):
            return None
        if claims.get("p") != purpose or int(claims.get("e", 0)) < time.time():
            return None
        value: dict[str, Any] = claims["v"]
        return value

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())
