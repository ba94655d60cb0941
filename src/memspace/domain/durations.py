"""Durations as people write them ("90m", "12h", "30d", "2w"): how long a memory is kept
before it expires (`forgetAfter`, docs/lifecycle.md#expiry). No I/O."""

from __future__ import annotations

import re
from datetime import timedelta

# A number and one unit: minutes, hours, days or weeks (seconds are too short to mean
# anything for a memory, months and years too long to have one length).
_DURATION = re.compile(r"(?P<amount>\d+)\s*(?P<unit>m|min|mins|h|d|w)", re.IGNORECASE)
_UNITS = {"m": "minutes", "min": "minutes", "mins": "minutes", "h": "hours", "d": "days",
          "w": "weeks"}
# Past this no datetime holds the end (year 9999): a longer stay is no expiry at all.
MAX_DURATION = timedelta(days=365 * 100)


def parse_duration(text: str) -> timedelta:
    """The duration `text` names, e.g. "90m", "12h", "30d", "2w" (spaces around and between
    are allowed, the unit's case is not significant).

    Raises:
        ValueError: `text` is not a whole number followed by m, h, d or w, is zero, or is
            longer than a hundred years; the message says which.
    """
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"'{text}' is not a duration: write a whole number and a unit, "
                         "m (minutes), h (hours), d (days) or w (weeks)")
    try:
        length = timedelta(**{_UNITS[match["unit"].lower()]: int(match["amount"])})
    except OverflowError:
        length = MAX_DURATION * 2  # past any datetime: refused as too long below
    if length <= timedelta(0):
        raise ValueError(f"'{text}' is no time at all: a duration is at least 1m")
    if length > MAX_DURATION:
        raise ValueError(f"'{text}' is longer than a hundred years: leave it out to keep the "
                         "memory without an expiry")
    return length
