"""A model-extracted fact that states when it began starts its valid time there (docs/time.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memspace.domain.bitemporal import TimeSlice, valid_from_of
from memspace.domain.models import MemoryFilter
from memspace.domain.stated_dates import stated_start
from tests.support.fakes import fact
from tests.unit.conftest import World

NOTE_TIME = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(("text", "start"), [
    ("Since March 2024 the team uses Postgres.", datetime(2024, 3, 1, tzinfo=UTC)),
    ("As of 2025-06-30, billing runs on Stripe.", datetime(2025, 6, 30, tzinfo=UTC)),
    ("On 4 March 2026 we moved the cluster to eu-west-1.", datetime(2026, 3, 4, tzinfo=UTC)),
    ("Ana joined the team on March 4th, 2025.", datetime(2025, 3, 4, tzinfo=UTC)),
    ("Payments moved from Braintree to Stripe in Feb. 2025.", datetime(2025, 2, 1, tzinfo=UTC)),
    ("effective 1 Oct 2026 the on-call rotation is weekly", datetime(2026, 10, 1, tzinfo=UTC)),
    # The first start in the text: where a range begins.
    ("from 2024-01-01 to 2024-06-01 the office was closed", datetime(2024, 1, 1, tzinfo=UTC)),
])
def test_a_stated_start_is_read(text: str, start: datetime) -> None:
    assert stated_start(text, NOTE_TIME) == start


@pytest.mark.parametrize("text", [
    "The deadline is 2025-01-01.",  # a date, but nothing says the fact began then
    "Starting on 2027-01-01 we freeze deploys.",  # after the note: a plan, not a fact yet
    "We have used Postgres since 2024.",  # a bare year is too loose
    "The review on 31 February 2025 was moved.",  # no such day
    "We moved the cluster last week.",  # relative
    "The SLA is 99.9 percent since the 2024-3-1 change.",  # not a calendar date as written
])
def test_no_start_is_read(text: str) -> None:
    assert stated_start(text, NOTE_TIME) is None


def test_an_extracted_fact_starts_at_the_date_it_states(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    assert model_world.extractor is not None
    model_world.extractor.facts(fact("Since March 2024 billing runs on Stripe", "billing"),
                                fact("The invoices are sent on Mondays", "billing"))
    result = model_world.app.memories.add(
        who, "Since March 2024 billing runs on Stripe; invoices go out on Mondays")
    stated, plain = result.memories
    assert valid_from_of(stated) == datetime(2024, 3, 1, tzinfo=UTC)
    assert valid_from_of(plain) == plain.created_at
    space = model_world.app.store.directory.get_space_by_slug("acme")
    assert space is not None
    ids = {m.id for m in model_world.app.store.reads.list_memories(
        MemoryFilter(space.id, at=TimeSlice(as_of=datetime(2024, 6, 1, tzinfo=UTC))), 10)}
    assert ids == {stated.id}  # valid then; the Monday note began only when it was written
    ids = {m.id for m in model_world.app.store.reads.list_memories(
        MemoryFilter(space.id, at=TimeSlice(as_of=datetime(2024, 2, 1, tzinfo=UTC))), 10)}
    assert ids == set()


def test_a_given_observed_at_wins_over_a_stated_date(model_world: World) -> None:
    who = model_world.principal({"acme": "rw"})
    assert model_world.extractor is not None
    model_world.extractor.facts(fact("Since March 2024 billing runs on Stripe", "billing"))
    observed = NOTE_TIME - timedelta(days=30)
    [memory] = model_world.app.memories.add(
        who, "Since March 2024 billing runs on Stripe", observed_at=observed).memories
    assert valid_from_of(memory) == observed
