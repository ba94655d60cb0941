"""What a client may register and present: redirect URIs (an allow-list of schemes, loopback
ports, no fragments), bounded metadata, and how resource identifiers compare (RFC 8707)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from memspace.domain.errors import InvalidInput

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
# Redirect schemes are an allow-list: https; http on loopback only (RFC 8252 §7.3); and a
# native app's private-use scheme, which RFC 8252 §7.1 wants in reverse-domain form (it has a
# dot, e.g. com.example.app:/cb), or one of the few MCP clients that registered a short one
# before that rule was common. Everything else (ftp:, ws:, jar:, view-source:, javascript:,
# data:, file:, ...) is refused.
NATIVE_APP_SCHEMES = ("cursor", "vscode", "vscode-insiders", "windsurf", "zed", "claude")
PRIVATE_SCHEME = re.compile(r"[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+")
# Registration is bounded field by field (a 3 MB name or 20,000 URIs must not be stored).
MAX_REDIRECT_URIS = 10
MAX_URI_CHARS = 2000
MAX_NAME_CHARS = 200
MAX_FIELD_CHARS = 2000
MAX_LIST_ITEMS = 10
MAX_METADATA_CHARS = 16_000


def check_redirect_uri(uri: str) -> None:
    """A redirect URI a client may register: https anywhere, http on loopback only (RFC 8252
    §7.3), or an app's private-use scheme (§7.1); never a fragment.

    Raises:
        InvalidInput: saying which rule the URI breaks.
    """
    if len(uri) > MAX_URI_CHARS:
        raise InvalidInput(f"a redirect URI may have at most {MAX_URI_CHARS} characters")
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http") and scheme not in NATIVE_APP_SCHEMES \
            and not PRIVATE_SCHEME.fullmatch(scheme):
        raise InvalidInput(
            f"redirect URI {uri[:100]!r} needs https://, http:// on loopback, or a native app's "
            "private-use scheme in reverse-domain form (e.g. com.example.app:/callback)")
    if parts.fragment or "#" in uri:
        raise InvalidInput(f"redirect URI {uri!r} must not carry a fragment")
    if scheme == "http" and (parts.hostname or "") not in LOOPBACK_HOSTS:
        raise InvalidInput(
            f"redirect URI {uri!r}: plain http is only allowed on 127.0.0.1, localhost or [::1]; "
            "use https")
    if scheme in ("http", "https") and not parts.hostname:
        raise InvalidInput(f"redirect URI {uri!r} has no host")


def check_metadata_bounds(name: str, metadata: dict[str, object]) -> None:
    """Every registered field bounded: the name, each string, each list, and the whole record.

    Raises:
        InvalidInput: naming the field that is too long.
    """
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"client_name may have at most {MAX_NAME_CHARS} characters")
    for field, value in metadata.items():
        if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
            raise InvalidInput(f"{field} may have at most {MAX_FIELD_CHARS} characters")
        if isinstance(value, list) and len(value) > MAX_LIST_ITEMS:
            raise InvalidInput(f"{field} may have at most {MAX_LIST_ITEMS} entries")
        if isinstance(value, list) and any(len(str(v)) > MAX_FIELD_CHARS for v in value):
            raise InvalidInput(f"each entry of {field} may have at most {MAX_FIELD_CHARS} characters")
    if len(json.dumps(metadata)) > MAX_METADATA_CHARS:
        raise InvalidInput(f"the client metadata may have at most {MAX_METADATA_CHARS} characters")


def redirect_matches(registered: str, presented: str) -> bool:
    """Byte for byte, except that a loopback http redirect may use any port (RFC 8252 §7.3:
    native apps listen on an ephemeral port chosen at request time)."""
    if "#" in presented:  # registration refuses fragments; so does every comparison
        return False
    if registered == presented:
        return True
    want, got = urlsplit(registered), urlsplit(presented)
    if want.scheme != "http" or got.scheme != "http" or want.hostname not in LOOPBACK_HOSTS:
        return False
    try:
        got.port  # noqa: B018 — a malformed port raises here
    except ValueError:
        return False
    return (want.hostname, want.path, want.query, want.username, want.password) == (
        got.hostname, got.path, got.query, got.username, got.password)


def same_resource(a: str, b: str) -> bool:
    """RFC 8707 resource identifiers compared with case-insensitive scheme/host, no trailing /."""
    x, y = urlsplit(a), urlsplit(b)
    return ((x.scheme.lower(), x.netloc.lower(), x.path.rstrip("/"), x.query)
            == (y.scheme.lower(), y.netloc.lower(), y.path.rstrip("/"), y.query))


def check_registration(name: str, redirect_uris: list[str], metadata: dict[str, object]) -> None:
    """A registration memspace will store: 1 to MAX_REDIRECT_URIS usable URIs, bounded fields.

    Raises:
        InvalidInput: saying which rule is broken.
    """
    if not redirect_uris:
        raise InvalidInput("register at least one redirect_uri")
    if len(redirect_uris) > MAX_REDIRECT_URIS:
        raise InvalidInput(f"register at most {MAX_REDIRECT_URIS} redirect_uris")
    for uri in redirect_uris:
        check_redirect_uri(uri)
    check_metadata_bounds(name, metadata)
