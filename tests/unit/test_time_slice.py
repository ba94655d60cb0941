"""asOf / knownAt as every surface passes them (services/shared/time_travel.py, docs/time.md)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.errors import InvalidInput
from memspace.services.shared.time_travel import time_slice
from tests.support.fakes import StepClock

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(("as_of", "known_at", "expected"), [
    (None, None, None),
    ("", "  ", None),
    ("2026-05-01", None, TimeSlice(datetime(2026, 5, 1, tzinfo=UTC), None)),  # midnight UTC
    ("2026-05-01T09:00:00Z", None, TimeSlice(datetime(2026, 5, 1, 9, tzinfo=UTC), None)),
    ("2026-05-01T11:00:00+02:00", None, TimeSlice(datetime(2026, 5, 1, 9, tzinfo=UTC), None)),
    (None, "2026-05-01T09:00:00", TimeSlice(None, datetime(2026, 5, 1, 9, tzinfo=UTC))),
    ("2030-01-01", "2026-05-01", TimeSlice(datetime(2030, 1, 1, tzinfo=UTC),
                                           datetime(2026, 5, 1, tzinfo=UTC))),  # asOf may be ahead
])
def test_times_are_read_in_utc(as_of: str | None, known_at: str | None,
                               expected: TimeSlice | None) -> None:
    assert time_slice(as_of, known_at, StepClock(NOW)) == expected


@pytest.mark.parametrize(("as_of", "known_at", "says"), [
    ("last week", None, "asOf 'last week' is not a time"),
    ("2026-02-30", None, "asOf '2026-02-30' is not a time"),
    (None, "2026-06-02", "is in the future"),
    ("0001-01-01T00:00:00+14:00", None, "out of range"),
])
def test_bad_times_say_what_to_pass(as_of: str | None, known_at: str | None, says: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        time_slice(as_of, known_at, StepClock(NOW))
    assert says in refused.value.message
