"""Whether OAuth can run at a public URL: the server (api/oauth) turns it off when it cannot,
and `memspace doctor` says why."""

from __future__ import annotations

from mcp.server.auth.routes import validate_issuer_url
from pydantic import AnyHttpUrl


def oauth_off_reason(origin: str) -> str | None:
    """Why OAuth cannot run with `origin` as its issuer, saying what to set; None when it can.
    The server logs this at start and `memspace doctor` reports it."""
    try:
        validate_issuer_url(AnyHttpUrl(origin))
    except ValueError as exc:
        return (f"OAuth is off: the public URL {origin} cannot be an OAuth issuer ({exc}; plain "
                "http is accepted only on 127.0.0.1/localhost). Set MEMSPACE_PUBLIC_URL to the "
                "https:// origin clients reach; API keys keep working")
    return None
