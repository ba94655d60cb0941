"""The expiry an add may carry (docs/lifecycle.md#expiry): the duration parser of
domain/durations.py and the service's check, services/memories/memory_rules.expiry_of."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memspace.domain.durations import parse_duration
from memspace.domain.errors import InvalidInput
from memspace.services.memories.memory_rules import expiry_of

NOW = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "length"), [
    ("90m", timedelta(minutes=90)),
    ("12h", timedelta(hours=12)),
    ("30d", timedelta(days=30)),
    ("2w", timedelta(weeks=2)),
    (" 3 D ", timedelta(days=3)),
    ("45min", timedelta(minutes=45)),
])
def test_a_duration_reads_as_written(text: str, length: timedelta) -> None:
    assert parse_duration(text) == length


@pytest.mark.parametrize(("text", "said"), [
    ("", "is not a duration"),
    ("soon", "is not a duration"),
    ("1.5h", "is not a duration"),
    ("-2d", "is not a duration"),
    ("3 months", "is not a duration"),
    ("10s", "is not a duration"),
    ("0m", "no time at all"),
    ("9999999w", "longer than a hundred years"),
    ("99999999999999999999w", "longer than a hundred years"),
])
def test_what_is_not_a_duration_says_why(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_duration(text)


def test_no_expiry_given_is_none() -> None:
    assert expiry_of(None, None, NOW) is None
    assert expiry_of("  ", "", NOW) is None


def test_forget_after_counts_from_now_in_utc() -> None:
    assert expiry_of(None, "12h", NOW) == NOW + timedelta(hours=12)
    local = NOW.astimezone(timezone(timedelta(hours=2)))
    got = expiry_of(None, "1d", local)
    assert got == NOW + timedelta(days=1) and got is not None and got.utcoffset() == timedelta(0)


def test_expires_at_keeps_the_instant_given_in_any_offset() -> None:
    assert expiry_of("2026-06-30T17:00:00+02:00", None, NOW) == datetime(
        2026, 6, 30, 15, 0, tzinfo=UTC)
    assert expiry_of("2026-06-30T15:00:00Z", None, NOW) == datetime(2026, 6, 30, 15, 0, tzinfo=UTC)
    given = datetime(2026, 6, 30, 15, 0, tzinfo=UTC)
    assert expiry_of(given, None, NOW) == given


@pytest.mark.parametrize(("expires_at", "forget_after", "said"), [
    ("2026-06-30T15:00:00Z", "30d", "not both"),
    (None, "next week", "forgetAfter 'next week' is not a duration"),
    ("tomorrow", None, "expiresAt 'tomorrow' is not a time"),
    ("2026-06-30T15:00:00", None, "has no offset"),
    ("2026-06-30", None, "has no offset"),
    ("2026-05-01T09:00:00Z", None, "is not after now"),
    ("2020-01-01T00:00:00+01:00", None, "is not after now"),
])
def test_a_bad_expiry_is_refused_with_a_worked_example(
        expires_at: str | None, forget_after: str | None, said: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        expiry_of(expires_at, forget_after, NOW)
    assert said in refused.value.message
    assert "forgetAfter" in refused.value.message or "expiresAt=" in refused.value.message
    assert '"2026-' in refused.value.message or '"30d"' in refused.value.message


def test_an_export_line_keeps_the_expiry() -> None:
    from dataclasses import replace

    from memspace.domain.models import Memory
    from memspace.services.portability.export_records import memory_line
    from memspace.services.portability.import_records import memory_of

    memory = Memory("m1", "s1", "The freeze holds until June", "general", None, True, NOW,
                    "test", "h", expires_at=datetime(2026, 6, 30, 15, 0, tzinfo=UTC))
    line = memory_line(memory)
    assert line["expiresAt"] == "2026-06-30T15:00:00Z"
    assert memory_of("s2", line, lambda v: v).expires_at == memory.expires_at
    assert "expiresAt" not in memory_line(replace(memory, expires_at=None))
