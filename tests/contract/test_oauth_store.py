"""The OAuthStore contract, run on every store alike (domain/oauth.py)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.graph_port import GraphStore
from memspace.domain.models import Access, ApiKey, Space
from memspace.domain.oauth import FamilyToken, LoginLink, OAuthClient, OAuthStore, TokenFamily, TokenKind

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _id() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def setup(store: GraphStore) -> tuple[OAuthStore, str, str, str]:
    """(oauth store, key id, client id, space id)."""
    space = Space(_id(), f"s-{_id()[:8]}", "s", "", NOW, NOW)
    store.directory.create_space(space)
    key = ApiKey(_id(), "alice", "msk_x", _id(), {space.id: Access.READWRITE}, None, None, NOW)
    store.directory.create_key(key)
    oauth = store.oauth
    client = OAuthClient(_id(), "agent", ("http://127.0.0.1:9/cb",), NOW, '{"client_id": "x"}')
    oauth.save_client(client)
    return oauth, key.id, client.client_id, space.id


def _family(key_id: str, client_id: str, space_id: str) -> tuple[TokenFamily, FamilyToken]:
    family = TokenFamily(_id(), client_id, key_id, {space_id: Access.READ}, "http://h/mcp",
                         "http://127.0.0.1:9/cb", "challenge", NOW)
    return family, FamilyToken(_id(), family.id, TokenKind.CODE, NOW, NOW + timedelta(minutes=5))


def test_a_client_reads_back_as_registered(setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, _, client_id, _ = setup
    client = oauth.get_client(client_id)
    assert client is not None and client.redirect_uris == ("http://127.0.0.1:9/cb",)
    assert client.created_at == NOW and client.metadata == '{"client_id": "x"}'
    assert client_id in {c.client_id for c in oauth.list_clients()}
    assert oauth.get_client(_id()) is None


def test_a_login_link_redeems_once_and_never_after_it_expires(
        setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, key_id, _, _ = setup
    fresh, stale = _id(), _id()
    oauth.save_login_link(LoginLink(fresh, key_id, NOW, NOW + timedelta(minutes=15)))
    oauth.save_login_link(LoginLink(stale, key_id, NOW, NOW + timedelta(minutes=15)))
    used = oauth.redeem_login_link(fresh, NOW + timedelta(minutes=1))
    assert used is not None and used.key_id == key_id and used.used_at == NOW + timedelta(minutes=1)
    assert oauth.redeem_login_link(fresh, NOW + timedelta(minutes=2)) is None
    assert oauth.redeem_login_link(stale, NOW + timedelta(minutes=16)) is None
    assert oauth.redeem_login_link(_id(), NOW) is None


def test_a_token_is_used_once_and_its_use_issues_the_next_ones(
        setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, key_id, client_id, space_id = setup
    family, code = _family(key_id, client_id, space_id)
    oauth.start_family(family, code)
    found = oauth.get_token(code.sha256)
    assert found == (code, family)
    access = FamilyToken(_id(), family.id, TokenKind.ACCESS, NOW, NOW + timedelta(minutes=30))
    refresh = FamilyToken(_id(), family.id, TokenKind.REFRESH, NOW, NOW + timedelta(days=30))
    assert oauth.use_token(code.sha256, NOW, [access, refresh])
    stored = oauth.get_token(code.sha256)
    assert stored is not None and stored[0].used_at == NOW
    assert oauth.get_token(access.sha256) == (access, family)
    again = FamilyToken(_id(), family.id, TokenKind.ACCESS, NOW, NOW + timedelta(minutes=30))
    assert not oauth.use_token(code.sha256, NOW, [again])
    assert oauth.get_token(again.sha256) is None  # a refused use stores nothing


def test_a_revoked_family_issues_nothing_more(setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, key_id, client_id, space_id = setup
    family, code = _family(key_id, client_id, space_id)
    oauth.start_family(family, code)
    oauth.revoke_family(family.id, NOW)
    found = oauth.get_token(code.sha256)
    assert found is not None and found[1].revoked_at == NOW
    assert not oauth.use_token(code.sha256, NOW, [])
    assert [f.revoked_at for f in oauth.list_families() if f.id == family.id] == [NOW]


def test_revoking_a_client_revokes_each_live_family_once(
        setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, key_id, client_id, space_id = setup
    for _ in range(2):
        oauth.start_family(*_family(key_id, client_id, space_id))
    assert oauth.revoke_client(client_id, NOW) == 2
    assert oauth.revoke_client(client_id, NOW) == 0
    assert all(f.revoked_at == NOW for f in oauth.list_families() if f.client_id == client_id)


def test_expired_tokens_are_purged_and_live_ones_kept(setup: tuple[OAuthStore, str, str, str]) -> None:
    oauth, key_id, client_id, space_id = setup
    family, code = _family(key_id, client_id, space_id)
    oauth.start_family(family, code)
    live = FamilyToken(_id(), family.id, TokenKind.REFRESH, NOW, NOW + timedelta(days=30))
    assert oauth.use_token(code.sha256, NOW, [live])
    assert oauth.purge_tokens(NOW + timedelta(days=1)) >= 1
    assert oauth.get_token(code.sha256) is None
    assert oauth.get_token(live.sha256) == (live, family)
