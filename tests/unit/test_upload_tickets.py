"""Upload tickets let the upload view send a file without the API key, and nothing more."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.errors import Forbidden, NotFound, Unauthenticated
from memspace.domain.models import Access
from memspace.services.uploads import UploadTickets
from tests.unit.conftest import World


class ManualClock:
    def __init__(self) -> None:
        self.at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at


def tickets(world: World, clock: ManualClock, secret: bytes = b"s" * 32) -> UploadTickets:
    return UploadTickets(world.app.store, world.app.access, clock, secret)


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
