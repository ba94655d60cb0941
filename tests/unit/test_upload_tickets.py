"""Upload tickets let the upload view send a file without the API key, and nothing more."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.errors import Forbidden, NotFound, Unauthenticated
from memspace.domain.models import Access, ApiKey
from memspace.services.access.uploads import UploadTickets
from tests.unit.conftest import World


class ManualClock:
    def __init__(self) -> None:
        self.at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at


def tickets(world: World, clock: ManualClock, secret: bytes = b"s" * 32) -> UploadTickets:
    return UploadTickets(world.app.store.directory, world.app.access, clock, secret)


def test_a_ticket_stands_for_its_key_in_its_one_space(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "rw"})
    issuer = tickets(world, ManualClock())
    ticket = issuer.issue(who, "acme")
    assert ticket.token.startswith("mst_") and ticket.space == "acme"
    holder = issuer.redeem(ticket.token)
    assert holder.key_id == who.key_id and holder.name == who.name
    assert world.app.access.resolve(holder, None, write=True).space.slug == "acme"
    with pytest.raises(NotFound):
        world.app.access.resolve(holder, "other")


def test_a_read_grant_gets_no_ticket(world: World) -> None:
    reader = world.principal({"acme": "r"})
    with pytest.raises(Forbidden):
        tickets(world, ManualClock()).issue(reader, "acme")


def test_expired_forged_or_foreign_tickets_are_refused(world: World) -> None:
    who = world.principal({"acme": "rw"})
    clock = ManualClock()
    issuer = tickets(world, clock)
    token = issuer.issue(who, "acme").token
    payload, _, signature = token.partition(".")
    for bad in [token[:-2] + "xx", payload + ".", "mst_garbage", f"{payload}x.{signature}"]:
        with pytest.raises(Unauthenticated):
            issuer.redeem(bad)
    with pytest.raises(Unauthenticated, match="another server"):
        tickets(world, clock, secret=b"t" * 32).redeem(token)
    clock.at += timedelta(minutes=4, seconds=59)  # a ticket lives five minutes
    assert issuer.redeem(token).key_id == who.key_id
    clock.at += timedelta(seconds=2)
    with pytest.raises(Unauthenticated, match="expired"):
        issuer.redeem(token)


def test_revoking_the_key_stops_its_tickets(world: World) -> None:
    issuer = tickets(world, ManualClock())
    created = world.app.admin.create_key("uploader", {"acme": Access.READWRITE})
    who = world.app.access.authenticate(created.raw)
    token = issuer.issue(who, "acme").token
    world.app.admin.revoke_key(created.key.id)
    with pytest.raises(Unauthenticated, match="revoked"):
        issuer.redeem(token)


def test_a_ticket_is_header_safe_and_its_signature_covers_the_payload(world: World) -> None:
    import base64
    import json

    who = world.principal({"acme": "rw", "other": "rw"})
    issuer = tickets(world, ManualClock())
    token = issuer.issue(who, "acme").token
    assert re.fullmatch(r"mst_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", token)  # no padding, no spaces
    payload, _, signature = token.removeprefix("mst_").partition(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    other = world.app.store.directory.get_space_by_slug("other")
    assert other is not None
    forged = base64.urlsafe_b64encode(json.dumps(claims | {"s": other.id}).encode()).rstrip(b"=")
    with pytest.raises(Unauthenticated) as refused:
        issuer.redeem(f"mst_{forged.decode()}.{signature}")
    assert refused.value.message == (
        "upload ticket not valid here (malformed, or signed by another server: replicas must "
        "share MEMSPACE_UPLOAD_SECRET); ask the upload view for a new one")
    with pytest.raises(Unauthenticated) as garbled:
        unsigned = "mst_bm90IGpzb24"
        issuer.redeem(f"{unsigned}.{issuer._sign(unsigned.removeprefix('mst_'))}")  # type: ignore[attr-defined]
    assert garbled.value.message == "malformed upload ticket"


def test_the_ticket_s_principal_is_its_key_in_that_one_space(world: World) -> None:
    who = world.principal({"acme": "rw", "other": "rw"}, name="ana")
    acme = world.app.store.directory.get_space_by_slug("acme")
    assert acme is not None
    holder = tickets(world, ManualClock()).redeem(tickets(world, ManualClock()).issue(who, "acme").token)
    assert (holder.name, holder.key_id, holder.grants, holder.default_space_id, holder.active_space_id,
            holder.operator) == ("ana", who.key_id, {acme.id: Access.READWRITE}, acme.id, acme.id, False)


def test_revoking_the_key_or_its_write_grant_stops_its_tickets(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    issuer = tickets(world, ManualClock())
    revoked = world.app.admin.create_key("gone", {"acme": Access.READWRITE})
    ticket = issuer.issue(world.app.access.authenticate(revoked.raw), "acme").token
    world.app.admin.revoke_key(revoked.key.prefix)
    with pytest.raises(Unauthenticated) as refused:
        issuer.redeem(ticket)
    assert refused.value.message == "the API key behind this upload ticket was revoked"
    lowered = world.principal({"acme": "rw"})
    ticket = issuer.issue(lowered, "acme").token
    get_key = world.app.store.directory.get_key

    def read_only_now(key_id: str) -> ApiKey | None:  # the store has no grant edit; a key re-read
        key = get_key(key_id)
        return key and replace(key, grants=dict.fromkeys(key.grants, Access.READ))

    monkeypatch.setattr(world.app.store.directory, "get_key", read_only_now)
    with pytest.raises(Unauthenticated) as read_only:
        issuer.redeem(ticket)
    assert read_only.value.message == "the API key behind this upload ticket may no longer write that space"


def test_the_operator_gets_no_ticket(world: World) -> None:
    with pytest.raises(Forbidden) as refused:
        tickets(world, ManualClock()).issue(world.app.access.operator(), "acme")
    assert refused.value.message == "the local operator uploads with `memspace import FILE`, not a ticket"


def test_a_ticket_says_when_it_expires_and_holds_to_that_second(world: World) -> None:
    who = world.principal({"acme": "rw"})
    clock = ManualClock()
    issuer = tickets(world, clock)
    ticket = issuer.issue(who, "acme")
    assert ticket.expires_at == clock.at + timedelta(minutes=5)
    clock.at = ticket.expires_at
    assert issuer.redeem(ticket.token).key_id == who.key_id
    clock.at += timedelta(seconds=1)
    with pytest.raises(Unauthenticated) as expired:
        issuer.redeem(ticket.token)
    assert expired.value.message == "upload ticket expired; ask the upload view for a new one"
