from __future__ import annotations

import pytest

from memspace.domain.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Unauthenticated,
    Unavailable,
)
from memspace.domain.models import Access
from memspace.services.access.access import Principal, hash_key
from memspace.services.access.admin import parse_grant
from tests.unit.conftest import World


def test_only_the_sha256_of_a_key_is_stored(world: World) -> None:
    created = world.app.admin.create_key("a", {"acme": Access.READ})
    stored = world.app.store.directory.get_key(created.key.id)
    assert stored is not None and stored.sha256 == hash_key(created.raw)
    assert created.raw not in repr(stored) and created.raw.startswith(stored.prefix + "_")


@pytest.mark.parametrize("raw, words", [
    (None, "no API key"), ("", "no API key"), ("Bearer", "malformed"),
    ("msk_short_x", "malformed"), ("msk_abcdefgh_" + "z" * 43, "unknown"),
])
def test_unusable_keys_are_refused_with_the_reason(world: World, raw: str | None, words: str) -> None:
    with pytest.raises(Unauthenticated, match=words):
        world.app.access.authenticate(raw)


def test_revoked_keys_are_refused(world: World) -> None:
    created = world.app.admin.create_key("temp", {"acme": Access.READWRITE})
    assert world.app.access.authenticate(created.raw).name == "temp"
    world.app.admin.revoke_key(created.key.prefix)
    with pytest.raises(Unauthenticated, match="revoked"):
        world.app.access.authenticate(created.raw)


def test_a_space_without_a_grant_looks_like_a_missing_one(world: World) -> None:
    who = world.principal({"acme": "rw"})
    with pytest.raises(NotFound) as hidden:
        world.app.access.resolve(who, "other")
    with pytest.raises(NotFound) as missing:
        world.app.access.resolve(who, "nowhere")
    assert hidden.value.message.replace("other", "S") == missing.value.message.replace("nowhere", "S")


def test_a_key_resolves_its_spaces_from_its_own_read(world: World) -> None:
    """The spaces come with the key (one read per call fewer), and say the same as the store."""
    who = world.principal({"acme": "rw"})
    store = world.app.store
    assert who.spaces is not None and set(who.spaces) == {"acme"}
    reads: list[str] = []
    for name in ("get_space", "get_space_by_slug"):
        original = getattr(store.directory, name)
        setattr(store.directory, name, lambda value, _o=original, _n=name: reads.append(_n) or _o(value))
    assert world.app.access.resolve(who, " acme ").space == store.directory.get_space_by_slug("acme")
    assert world.app.access.resolve(who, None).space.slug == "acme"  # the default space
    with pytest.raises(NotFound):
        world.app.access.resolve(who, "other")
    assert reads == ["get_space_by_slug"]  # only the comparison above read the store
    operator = world.app.access.operator()
    assert world.app.access.resolve(operator, "other").space.slug == "other"
    assert reads[-1] == "get_space_by_slug"


def test_a_read_grant_cannot_write(world: World) -> None:
    who = world.principal({"acme": "r"})
    assert world.app.access.resolve(who, "acme").space.slug == "acme"
    with pytest.raises(Forbidden, match="read-write grant"):
        world.app.access.resolve(who, "acme", write=True)


def test_the_active_space_wins_over_the_default(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "r"})
    with pytest.raises(NotFound, match="no space given"):
        world.app.access.resolve(who, None)
    world.app.access.set_active_space(who, "other")
    key = world.app.store.directory.get_key(who.key_id or "")
    assert key is not None  # principals are re-read from the store on every request
    assert world.app.access.resolve(Principal.from_key(key), None).space.slug == "other"


def test_a_single_grant_becomes_the_default_space(world: World) -> None:
    who = world.principal({"acme": "rw"})
    assert world.app.access.resolve(who, None).space.slug == "acme"


@pytest.mark.parametrize("grant", ["acme", "acme:x", ":rw"])
def test_malformed_grants_are_rejected(world: World, grant: str) -> None:
    with pytest.raises(InvalidInput, match="SLUG:rw"):
        parse_grant(grant)


def test_space_slugs_are_validated_and_unique(world: World) -> None:
    with pytest.raises(InvalidInput, match="slug"):
        world.app.admin.create_space("Not A Slug!")
    with pytest.raises(Conflict):
        world.app.admin.create_space("acme")


def test_a_recently_seen_key_still_authenticates_while_the_store_is_down(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = world.app.admin.create_key("seen", {"acme": Access.READWRITE})
    unseen = world.app.admin.create_key("unseen", {"acme": Access.READWRITE})
    world.app.access.authenticate(seen.raw)

    def down(_: str) -> None:
        raise Unavailable("store down")

    monkeypatch.setattr(world.app.store.directory, "get_key_by_hash", down)
    assert world.app.access.authenticate(seen.raw).name == "seen"
    with pytest.raises(Unavailable):
        world.app.access.authenticate(unseen.raw)
