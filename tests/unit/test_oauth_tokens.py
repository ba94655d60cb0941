"""OAuth tokens, codes and login links at their edges (services/access/oauth.py): the exact instant a
token expires, what a reused one revokes, which kind is accepted where, and the README's
15-minute login link."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.errors import Unauthenticated
from memspace.domain.models import Access
from memspace.domain.oauth import TokenKind
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore

RESOURCE = "http://127.0.0.1:8000/mcp"
REDIRECT = "http://127.0.0.1:9/cb"
README_ACCESS_MINUTES = 30
README_LINK_MINUTES = 15


class HeldClock:
    """Time stands still until the test moves it."""

    def __init__(self) -> None:
        self.at = datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at


@pytest.fixture
def held() -> Iterator[tuple[Container, HeldClock]]:
    clock = HeldClock()
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=clock, blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    yield app, clock
    app.close()


def _code(app: Container) -> tuple[str, str, str]:
    """(client id, code, raw key) of a fresh approval of acme:read."""
    created = app.admin.create_key("alice", {"acme": Access.READWRITE})
    client = app.oauth.register("agent", [REDIRECT], {})
    code = app.oauth.approve(client.client_id, created.key.id, {"acme": Access.READ}, REDIRECT,
                             "challenge", RESOURCE)
    return client.client_id, code, created.raw


def test_an_access_token_is_refused_from_the_instant_it_expires(
        held: tuple[Container, HeldClock]) -> None:
    app, clock = held
    client_id, code, _ = _code(app)
    tokens = app.oauth.redeem(code, TokenKind.CODE, client_id)
    clock.at += timedelta(minutes=README_ACCESS_MINUTES) - timedelta(microseconds=1)
    app.oauth.authenticate(tokens.access_token, RESOURCE)
    clock.at += timedelta(microseconds=1)
    with pytest.raises(Unauthenticated) as expired:
        app.oauth.authenticate(tokens.access_token, RESOURCE)
    assert expired.value.message == "the access token has expired; refresh it or sign in again"


def test_a_code_is_refused_from_the_instant_it_expires(held: tuple[Container, HeldClock]) -> None:
    app, clock = held
    client_id, code, _ = _code(app)
    clock.at += timedelta(minutes=5)
    with pytest.raises(Unauthenticated) as expired:
        app.oauth.redeem(code, TokenKind.CODE, client_id)
    assert expired.value.message == "this code has expired; sign in again"


def test_tokens_carry_their_kind_and_256_bits(held: tuple[Container, HeldClock]) -> None:
    app, _ = held
    client_id, code, _ = _code(app)
    tokens = app.oauth.redeem(code, TokenKind.CODE, client_id)
    link = app.oauth.create_login_link("dana", {"acme": Access.READ})
    for raw, prefix in ((code, "msc_"), (tokens.access_token, "msa_"),
                        (tokens.refresh_token, "msr_"), (link.code, "msl_")):
        assert raw.startswith(prefix) and len(raw) == len(prefix) + 43, raw  # 32 random bytes


def test_a_token_of_another_kind_is_refused_where_it_does_not_belong(
        held: tuple[Container, HeldClock]) -> None:
    app, _ = held
    client_id, code, _ = _code(app)
    tokens = app.oauth.redeem(code, TokenKind.CODE, client_id)
    with pytest.raises(Unauthenticated) as refused:
        app.oauth.redeem(tokens.access_token, TokenKind.REFRESH, client_id)
    assert refused.value.message == "this refresh is unknown or was revoked; sign in again"
    with pytest.raises(Unauthenticated) as unknown:
        app.oauth.authenticate(tokens.refresh_token, RESOURCE)
    assert unknown.value.message == "unknown or revoked access token; sign in again"
    assert app.oauth.find(tokens.refresh_token, TokenKind.ACCESS) is None
    assert app.oauth.find(tokens.refresh_token, TokenKind.REFRESH) is not None


def test_a_reused_code_revokes_every_token_it_led_to(held: tuple[Container, HeldClock]) -> None:
    app, _ = held
    client_id, code, _ = _code(app)
    first = app.oauth.redeem(code, TokenKind.CODE, client_id)
    with pytest.raises(Unauthenticated) as reused:
        app.oauth.redeem(code, TokenKind.CODE, client_id)
    assert reused.value.message == ("this code was already used, so every token it led to is now "
                                    "revoked (RFC 9700 §4.14); sign in again")
    with pytest.raises(Unauthenticated, match="unknown or revoked"):
        app.oauth.authenticate(first.access_token, RESOURCE)
    [family] = app.oauth.families()
    assert family.revoked_at is not None


def test_a_login_link_lasts_15_minutes_and_signs_in_once_as_its_key(
        held: tuple[Container, HeldClock]) -> None:
    app, clock = held
    link = app.oauth.create_login_link("dana", {"acme": Access.READ})
    assert link.key.name == "dana" and link.expires_at == clock.at + timedelta(minutes=README_LINK_MINUTES)
    late = app.oauth.create_login_link("erin", {"acme": Access.READ})
    clock.at += timedelta(minutes=README_LINK_MINUTES)
    with pytest.raises(Unauthenticated) as expired:
        app.oauth.sign_in(late.code)
    assert expired.value.message == ("this sign-in link is unknown, was already used or has "
                                     "expired; print a new one with `memspace login-link`")
    clock.at -= timedelta(microseconds=1)
    who = app.oauth.sign_in(f"  https://memspace.example.com/login?code={link.code} ")
    assert (who.name, who.key_id) == ("dana", link.key.id)
    with pytest.raises(Unauthenticated, match="already used"):
        app.oauth.sign_in(link.code)


def test_an_api_key_signs_in_as_itself(held: tuple[Container, HeldClock]) -> None:
    app, _ = held
    _, _, raw = _code(app)
    assert app.oauth.sign_in(f" {raw} ").name == "alice"
