"""The period a query names (domain/dates.py)."""

from __future__ import annotations

from datetime import date

import pytest

from memspace.domain.dates import named_period


@pytest.mark.parametrize(("text", "period"), [
    ("What injury did Evan suffer in August 2023?", (date(2023, 8, 1), date(2023, 8, 31))),
    ("what happened in feb 2024", (date(2024, 2, 1), date(2024, 2, 29))),
    ("What did John organise on May 8, 2022?", (date(2022, 5, 8), date(2022, 5, 8))),
    ("the plan as of 1 February, 2023", (date(2023, 2, 1), date(2023, 2, 1))),
    ("on the 8th of May 2022", (date(2022, 5, 8), date(2022, 5, 8))),
    ("the outage on 2024-03-01", (date(2024, 3, 1), date(2024, 3, 1))),
    ("the outage on 2024/3/1", (date(2024, 3, 1), date(2024, 3, 1))),
    ("What did we ship in 2021?", (date(2021, 1, 1), date(2021, 12, 31))),
    ("Sept. 2020 was busy", (date(2020, 9, 1), date(2020, 9, 30))),
    ("Sep 2020 was busy", (date(2020, 9, 1), date(2020, 9, 30))),
])
def test_a_date_written_out_names_its_day_month_or_year(
        text: str, period: tuple[date, date] | None) -> None:
    assert named_period(text) == period


@pytest.mark.parametrize("text", [
    "What did Caroline paint?",
    "May I ask what happened yesterday?",  # "may" the verb, and a relative day
    "deploys since 2021",  # a year after "since" is not a period it names
    "February 30, 2024",  # no such day
    "the 2024-13-01 build",
    "room 2023 on the 4th floor",
])
def test_no_period_is_read_where_no_full_date_is_written(text: str) -> None:
    assert named_period(text) is None


def test_the_first_date_of_the_query_counts() -> None:
    assert named_period("between June 1, 2023 and August 2023") == (date(2023, 6, 1),
                                                                    date(2023, 6, 1))
    assert named_period("in March 2024, after 2024-01-05") == (date(2024, 3, 1),
                                                              date(2024, 3, 31))
