"""When a fact says it began to hold (docs/time.md): "since March 2024", "as of 2024-03-04",
"on 4 March 2024 we moved…". A model-extracted fact that states such a date starts its valid
time there rather than at the moment it was recorded.

Only a calendar date written out (ISO, day month year, month day year, month year), in
English, after a word that marks a start. A date in the future of the note, a bare year, and a
relative date ("last week") are not read: the first is a plan rather than a fact, the others
are too loose to put on a timeline."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_MONTHS = {name: n for n, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
    ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
    ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), start=1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"

# Words after which a date is when something began (or was found to hold).
_START = (r"(?:since|as\s+of|from|on|starting(?:\s+(?:on|from|in))?|effective(?:\s+(?:on|from))?"
          r"|beginning(?:\s+(?:on|in))?|began|begun|started|in"
          r"|at\s+the\s+(?:start|beginning)\s+of)")
_DATES = (
    r"(?P<iso>(?P<iy>(?:19|20)\d{2})-(?P<im>\d{2})-(?P<id>\d{2}))(?!\d)",
    rf"{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}",
    rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}",
    rf"{_MONTH},?\s+{_YEAR}",
)
_PATTERNS = [re.compile(rf"\b{_START}\s+(?:the\s+)?{date}\b", re.IGNORECASE) for date in _DATES]


def stated_start(text: str, not_after: datetime) -> datetime | None:
    """The earliest-placed date in `text` that follows a start word, as UTC midnight; None when
    there is none, or when it is after `not_after` (the note's own time) or not a real date."""
    found: list[tuple[int, datetime]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            when = _date_of(match)
            if when is not None and when <= not_after:
                found.append((match.start(), when))
    return min(found)[1] if found else None


def _date_of(match: re.Match[str]) -> datetime | None:
    parts = match.groupdict()
    try:
        if parts.get("iso"):
            return datetime(int(parts["iy"]), int(parts["im"]), int(parts["id"]), tzinfo=UTC)
        day = int(parts["day"]) if parts.get("day") else 1
        return datetime(int(parts["year"]), _MONTHS[parts["month"].lower()], day, tzinfo=UTC)
    except ValueError:  # 31 February, month 13
        return None
