"""OAuth rules without HTTP: redirect URIs, delegation never above the key, token lifecycle."""

from __future__ import annotations

import pytest

from memspace.domain.errors import Forbidden, InvalidInput, NotFound, Unauthenticated
from memspace.domain.models import Access
from memspace.domain.oauth import TokenKind
from memspace.services.oauth import check_redirect_uri, redirect_matches, same_resource
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
