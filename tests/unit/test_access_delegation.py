"""What an OAuth connection may do (AccessService.delegated / grantable): never more than its
key holds now, narrowed to what the person approved; and the messages that tell the caller
what to do next."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.errors import Forbidden, InvalidInput, NotFound, Unauthenticated
from memspace.domain.models import Access
from memspace.services.access.access import AccessService, Principal
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock
from tests.unit.conftest import World

R, RW = Access.READ, Access.READWRITE


def ids(world: World) -> tuple[str, str]:
    spaces = [world.app.store.directory.get_space_by_slug(s) for s in ("acme", "other")]
    assert spaces[0] is not None and spaces[1] is not None
    return spaces[0].id, spaces[1].id


def key_id(who: Principal) -> str:
    assert who.key_id is not None
    return who.key_id


def test_without_a_narrower_grant_the_connection_holds_what_its_key_holds(world: World) -> None:
    acme, other = ids(world)
    who = world.principal({"acme": "rw", "other": "r"}, name="ana")
    delegated = world.app.access.delegated(key_id(who))
    assert (delegated.name, delegated.key_id, delegated.grants) == ("ana", who.key_id, {acme: RW, other: R})
    assert (delegated.default_space_id, delegated.active_space_id, delegated.operator) == (None, None, False)


def test_a_grant_is_never_above_the_key_and_never_outside_it(world: World) -> None:
    acme, other = ids(world)
    who = world.principal({"acme": "rw", "other": "r"})
    delegated = world.app.access.delegated(key_id(who), {acme: R, other: RW, "space-gone": RW})
    assert delegated.grants == {acme: R, other: R}
    with pytest.raises(Forbidden, match="can only read space 'acme'"):
        world.app.access.resolve(delegated, "acme", write=True)


def test_a_single_space_becomes_the_default_and_the_active_space_survives_only_if_granted(
    world: World,
) -> None:
    acme, other = ids(world)
    who = world.principal({"acme": "rw", "other": "rw"})
    world.app.access.set_active_space(who, "other")
    only_other = world.app.access.delegated(key_id(who), {other: RW})
    assert (only_other.default_space_id, only_other.active_space_id) == (other, other)
    only_acme = world.app.access.delegated(key_id(who), {acme: RW})
    assert (only_acme.default_space_id, only_acme.active_space_id) == (acme, None)
    assert only_acme.spaces is not None and set(only_acme.spaces) == {"acme"}
    with pytest.raises(NotFound):  # the key's other space is not this connection's
        world.app.access.resolve(only_acme, "other")
    both = world.app.access.delegated(key_id(who), {acme: RW, other: RW})
    assert (both.default_space_id, both.active_space_id) == (None, other)


def test_the_key_s_own_default_stays_when_granted(world: World) -> None:
    acme, other = ids(world)
    created = world.app.admin.create_key("k", {"acme": RW, "other": RW}, default_slug="other")
    both = world.app.access.delegated(created.key.id, {acme: RW, other: RW})
    assert both.default_space_id == other
    narrowed = world.app.access.delegated(created.key.id, {acme: R})
    assert (narrowed.default_space_id, narrowed.grants) == (acme, {acme: R})


def test_a_revoked_or_deleted_key_ends_the_connection_with_what_to_do(world: World) -> None:
    created = world.app.admin.create_key("gone", {"acme": RW})
    world.app.admin.revoke_key(created.key.prefix)
    for key in (created.key.id, "no-such-key"):
        with pytest.raises(Unauthenticated) as refused:
            world.app.access.delegated(key)
        assert refused.value.message == (
            "the API key this connection was approved with has been revoked; connect again and "
            "sign in with a current key or a new `memspace login-link`")


def test_consent_grants_are_checked_against_what_the_person_holds(world: World) -> None:
    acme, _ = ids(world)
    who = world.principal({"acme": "rw", "other": "r"})
    assert world.app.access.grantable(who, {"acme": R}) == {acme: R}
    with pytest.raises(InvalidInput) as nothing:
        world.app.access.grantable(who, {})
    assert nothing.value.message == "choose at least one space to share with this client"
    with pytest.raises(Forbidden):
        world.app.access.grantable(who, {"other": RW})
    with pytest.raises(NotFound) as hidden:
        world.app.access.grantable(who, {"nowhere": R})
    assert hidden.value.message == ("space 'nowhere' not found, or this key has no access to it; "
                                    "call listSpaces to see the spaces you can use")


def test_the_operator_has_no_active_space(world: World) -> None:
    with pytest.raises(Forbidden) as refused:
        world.app.access.set_active_space(AccessService.operator(), "acme")
    assert refused.value.message == "the CLI operator has no active space; pass --space instead"


def test_the_raw_key_is_nowhere_in_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "memspace.db"
    app = build(Settings(_env_file=None), store=SqliteStore(str(path)),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    app.admin.create_space("acme")
    created = app.admin.create_key("agent", {"acme": RW})
    app.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())  # the file and any WAL beside it
    secret = created.raw.split("_", 2)[2].encode()
    assert secret not in stored and created.raw.encode() not in stored
    assert created.key.sha256.encode() in stored
