"""The period a query names ("in August 2023", "on 8 May 2022", "2024-03-01"), to compare with
the `observedAt` memories carry.

Only calendar dates written out in full are read: a day with its month and year, a month with
its year, or a year after "in" or "during". Words like "yesterday" or "last week" are
not: they depend on when the question is asked, which a search does not know. The first date
in the query counts.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name[:3]: number for name, number in _MONTHS.items()} | {"sept": 9}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(?P<{}>\d{{1,2}})(?:st|nd|rd|th)?"

_PATTERNS = [
    # 2024-03-01, 2024/03/01
    re.compile(r"\b(?P<year>\d{4})[-/](?P<month>\d{1,2})[-/](?P<day>\d{1,2})\b"),
    # May 8, 2022 / May 8th 2022
    re.compile(rf"\b(?P<name>{_MONTH})\.?\s+{_DAY.format('day')},?\s+(?P<year>\d{{4}})\b", re.I),
    # 8 May 2022 / 1 February, 2023 / 8th of May 2022
    re.compile(rf"\b{_DAY.format('day')}\s+(?:of\s+)?(?P<name>{_MONTH})\.?,?\s+(?P<year>\d{{4}})\b",
               re.I),
    # August 2023 / Aug. 2023
    re.compile(rf"\b(?P<name>{_MONTH})\.?,?\s+(?P<year>\d{{4}})\b", re.I),
    # in 2023 / during 2023
    re.compile(r"\b(?:in|during)\s+(?P<year>(?:19|20)\d{2})\b", re.I),
]


def named_period(text: str) -> tuple[date, date] | None:
    """The first and last day of the first date `text` names, or None."""
    found: list[tuple[int, tuple[date, date]]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            period = _period(match.groupdict())
            if period is not None:
                found.append((match.start(), period))
                break
    return min(found, key=lambda f: f[0])[1] if found else None


def _period(parts: dict[str, str | None]) -> tuple[date, date] | None:
    year = int(parts["year"] or 0)
    name = parts.get("name")
    month = _MONTHS[name.lower()] if name else int(parts.get("month") or 0)
    day = int(parts.get("day") or 0)
    try:
        if day:
            one = date(year, month, day)
            return one, one
        if month:
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        return date(year, 1, 1), date(year, 12, 31)
    except ValueError:  # "2023-13-45", "February 30, 2024": not a date
        return None
