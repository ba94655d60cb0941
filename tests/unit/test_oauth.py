"""OAuth rules without HTTP: redirect URIs, delegation never above the key, token lifecycle."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest

from memspace.domain.errors import Forbidden, InvalidInput, NotFound, Unauthenticated
from memspace.domain.models import Access
from memspace.domain.oauth import TokenKind
from memspace.services.access.oauth import check_redirect_uri, digest, redirect_matches, same_resource
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock
from tests.unit.conftest import World

RESOURCE = "http://127.0.0.1:8000/mcp"


@pytest.mark.parametrize("uri", ["https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/",
                                 "http://localhost:6274/oauth/callback", "cursor://anysphere/oauth"])
def test_usable_redirect_uris_register(uri: str) -> None:
    check_redirect_uri(uri)


@pytest.mark.parametrize("uri", ["http://app.example/cb", "javascript:alert(1)", "https://a.example/cb#x",
                                 "data:text/html,hi", "/relative"])
def test_unsafe_redirect_uris_are_refused(uri: str) -> None:
    with pytest.raises(InvalidInput):
        check_redirect_uri(uri)


def test_loopback_redirects_match_on_everything_but_the_port() -> None:
    assert redirect_matches("http://127.0.0.1:3000/cb", "http://127.0.0.1:51234/cb")
    assert redirect_matches("http://localhost/cb", "http://localhost:8080/cb")
    assert not redirect_matches("http://127.0.0.1:3000/cb", "http://127.0.0.1:3000/cb/")
    assert not redirect_matches("http://127.0.0.1:3000/cb", "http://localhost:3000/cb")
    assert not redirect_matches("https://app.example/cb", "https://app.example:444/cb")
    assert not redirect_matches("https://app.example/cb", "https://app.example/cb?x=1")


def test_resources_compare_without_case_or_trailing_slash() -> None:
    assert same_resource("HTTP://127.0.0.1:8000/mcp/", RESOURCE)
    assert not same_resource("http://127.0.0.1:8001/mcp", RESOURCE)


def _approved(world: World, grants: dict[str, Access]) -> tuple[str, str]:
    """(client id, code) for alice's key (acme:rw, other:r) approving `grants`."""
    key = world.app.admin.create_key("alice", {"acme": Access.READWRITE, "other": Access.READ}).key
    client = world.app.oauth.register("agent", ["http://127.0.0.1:9/cb"], {})
    code = world.app.oauth.approve(client.client_id, key.id, grants, "http://127.0.0.1:9/cb",
                                   "challenge", RESOURCE)
    return client.client_id, code


def test_consent_cannot_escalate_or_reach_an_ungranted_space(world: World) -> None:
    world.app.admin.create_space("secret")
    with pytest.raises(Forbidden):
        _approved(world, {"other": Access.READWRITE})
    with pytest.raises(NotFound):
        _approved(world, {"secret": Access.READ})
    with pytest.raises(InvalidInput):
        _approved(world, {})


def test_a_token_principal_holds_the_narrower_of_consent_and_key(world: World) -> None:
    client_id, code = _approved(world, {"acme": Access.READ})
    tokens = world.app.oauth.redeem(code, TokenKind.CODE, client_id)
    who = world.app.oauth.authenticate(tokens.access_token, RESOURCE)
    acme = world.app.admin.space("acme").id
    assert who.grants == {acme: Access.READ}
    with pytest.raises(Forbidden):
        world.app.access.resolve(who, "acme", write=True)
    with pytest.raises(NotFound):
        world.app.access.resolve(who, "other")
    with pytest.raises(Unauthenticated, match="issued for"):
        world.app.oauth.authenticate(tokens.access_token, "https://elsewhere.example/mcp")


def test_a_code_of_another_client_is_refused(world: World) -> None:
    _, code = _approved(world, {"acme": Access.READ})
    other = world.app.oauth.register("other", ["http://127.0.0.1:9/cb"], {})
    with pytest.raises(Unauthenticated):
        world.app.oauth.redeem(code, TokenKind.CODE, other.client_id)


def test_a_loopback_redirect_with_a_fragment_never_matches() -> None:
    assert not redirect_matches("http://localhost/cb", "http://localhost:5555/cb#injected=1&x")
    assert not redirect_matches("http://localhost/cb", "http://localhost/cb#")


@pytest.mark.parametrize("uri", ["ftp://a.example/cb", "ws://a.example/cb", "jar:file:/x!/cb",
                                 "view-source:https://a.example/cb", "https://a.example/" + "x" * 2000])
def test_redirect_schemes_are_an_allow_list_and_uris_are_bounded(uri: str) -> None:
    with pytest.raises(InvalidInput):
        check_redirect_uri(uri)


def test_signed_values_and_csrf_compare_any_text_without_raising() -> None:
    from memspace.api.oauth.signing import Signer, same_text

    assert same_text("é", "é") and not same_text("é", "e") and not same_text("\udc80", "x")
    signer = Signer(b"k" * 32)
    assert signer.verify("consent", "abc.é") is None
    assert signer.verify("consent", signer.sign("consent", {"a": 1})) == {"a": 1}


# The README's lifetimes, written out (not services/access/oauth.py's ACCESS_TTL / REFRESH_TTL), so that
# changing a constant fails here until the README says the new number.
README_ACCESS_MINUTES = 30
README_REFRESH_DAYS = 30
# The stepping clock adds a millisecond a reading; a second either side is far beyond that.
SECOND = timedelta(seconds=1)
TENTH = timedelta(milliseconds=100)


def test_an_access_token_lasts_30_minutes(world: World) -> None:
    assert world.clock is not None
    client_id, code = _approved(world, {"acme": Access.READ})
    tokens = world.app.oauth.redeem(code, TokenKind.CODE, client_id)
    assert tokens.expires_in == README_ACCESS_MINUTES * 60
    world.clock.advance(timedelta(minutes=README_ACCESS_MINUTES) - SECOND)
    world.app.oauth.authenticate(tokens.access_token, RESOURCE)
    world.clock.advance(2 * SECOND)
    with pytest.raises(Unauthenticated, match="expired"):
        world.app.oauth.authenticate(tokens.access_token, RESOURCE)


def test_a_refresh_token_lasts_30_days_to_the_second(world: World) -> None:
    """Still good a tenth of a second before 30 days, expired a tenth after: a lifetime a second
    shorter or longer than 30 days fails here. (Each clock reading in between adds a
    millisecond; a redeem reads it a few times, far fewer than a hundred.)"""
    assert world.clock is not None
    client_id, code = _approved(world, {"acme": Access.READ})
    first = world.app.oauth.redeem(code, TokenKind.CODE, client_id)
    world.clock.advance(timedelta(days=README_REFRESH_DAYS) - TENTH)
    second = world.app.oauth.redeem(first.refresh_token, TokenKind.REFRESH, client_id)
    world.clock.advance(timedelta(days=README_REFRESH_DAYS) + TENTH)
    with pytest.raises(Unauthenticated, match="expired"):
        world.app.oauth.redeem(second.refresh_token, TokenKind.REFRESH, client_id)


def test_codes_tokens_and_login_links_are_nowhere_in_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "memspace.db"
    app = build(Settings(_env_file=None), store=SqliteStore(str(path)),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    link = app.oauth.create_login_link("dana", {"acme": Access.READWRITE})
    signed_in = app.oauth.sign_in(link.code)
    client = app.oauth.register("agent", ["http://127.0.0.1:9/cb"], {})
    assert signed_in.key_id is not None
    code = app.oauth.approve(client.client_id, signed_in.key_id, {"acme": Access.READ},
                             "http://127.0.0.1:9/cb", "challenge", RESOURCE)
    first = app.oauth.redeem(code, TokenKind.CODE, client.client_id)
    second = app.oauth.redeem(first.refresh_token, TokenKind.REFRESH, client.client_id)
    app.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())  # the file and any WAL beside it
    secrets = [link.code, code, first.access_token, first.refresh_token, second.access_token,
               second.refresh_token]
    for secret in secrets:
        assert secret.encode() not in stored, f"{secret[:4]}… is stored as it was issued"
        # each is there, as its SHA-256 (hashlib's, not the code's own digest): the scan reads
        # the rows it means to
        assert hashlib.sha256(secret.encode()).hexdigest().encode() in stored, \
            f"{secret[:4]}… is not stored as its SHA-256"


def test_the_stored_form_is_the_hex_sha256_of_the_utf8_text() -> None:
    """FIPS 180-2's test vector, and a non-ASCII value, written out."""
    assert digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert digest("é") == hashlib.sha256(b"\xc3\xa9").hexdigest()
