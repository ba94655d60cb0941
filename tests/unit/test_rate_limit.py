"""The per-caller token bucket (api/rate_limit.py) on a clock the test moves: the limit a minute
goes through at once and the next request waits; a bucket holds one minute and no more, however
long its caller was idle; it refills at the limit's pace; each caller has its own; and buckets
that are full again are forgotten once there are too many, never one still being paid back.
Served over HTTP and MCP it is tested under load in tests/load/test_rate_limit.py."""

from __future__ import annotations

import pytest

from memspace.api import rate_limit
from memspace.api.rate_limit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


def _limiter(per_minute: int) -> tuple[RateLimiter, Clock]:
    clock = Clock()
    return RateLimiter(per_minute, now=clock), clock


def _granted(limiter: RateLimiter, caller: str, tries: int) -> int:
    return sum(1 for _ in range(tries) if limiter.take(caller) == 0)


@pytest.mark.parametrize("per_minute", [1, 7, 60, 600])
def test_the_limit_goes_through_at_once_and_the_next_request_waits(per_minute: int) -> None:
    limiter, _ = _limiter(per_minute)
    assert [limiter.take("a") for _ in range(per_minute)] == [0] * per_minute
    assert limiter.take("a") >= 1


@pytest.mark.parametrize("per_minute, wait", [(1, 60), (6, 10), (60, 1)])
def test_an_empty_bucket_names_the_whole_seconds_until_its_next_token(per_minute: int,
                                                                      wait: int) -> None:
    limiter, clock = _limiter(per_minute)
    _granted(limiter, "a", per_minute)
    assert limiter.take("a") == wait
    clock.at += wait - 0.5
    assert limiter.take("a") >= 1  # not yet
    clock.at += 0.5
    assert limiter.take("a") == 0


def test_a_wait_under_a_second_is_named_as_one_second() -> None:
    limiter, _ = _limiter(600)  # a token every tenth of a second
    _granted(limiter, "a", 600)
    assert limiter.take("a") == 1


def test_a_half_refilled_token_waits_the_other_half() -> None:
    limiter, clock = _limiter(6)  # a token every 10 seconds
    _granted(limiter, "a", 6)
    clock.at += 5
    assert limiter.take("a") == 5


@pytest.mark.parametrize("per_minute", [1, 60, 600])
def test_a_bucket_holds_one_minute_however_long_its_caller_was_idle(per_minute: int) -> None:
    limiter, clock = _limiter(per_minute)
    limiter.take("a")
    clock.at += 3600
    assert _granted(limiter, "a", 3 * per_minute) == per_minute


def test_a_bucket_refills_at_the_limits_pace() -> None:
    limiter, clock = _limiter(60)  # one a second
    _granted(limiter, "a", 60)
    clock.at += 10
    assert _granted(limiter, "a", 30) == 10
    clock.at += 2.5
    assert _granted(limiter, "a", 30) == 2
    clock.at += 0.5  # the half token left over and this half make one
    assert _granted(limiter, "a", 30) == 1


def test_asking_again_while_refused_earns_nothing() -> None:
    limiter, clock = _limiter(60)
    _granted(limiter, "a", 60)
    granted = 0
    for _ in range(40):  # ten seconds, asking every quarter second
        clock.at += 0.25
        granted += limiter.take("a") == 0
    assert granted == 10


def test_each_caller_has_its_own_bucket() -> None:
    limiter, _ = _limiter(60)
    assert _granted(limiter, "noisy", 200) == 60
    assert _granted(limiter, "quiet", 60) == 60
    assert limiter.take("quiet") >= 1


def test_too_many_buckets_forget_the_full_ones_and_keep_those_being_paid_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rate_limit, "MAX_BUCKETS", 3)
    limiter, clock = _limiter(120)  # two a second: a minute is not the limit's own number
    _granted(limiter, "noisy", 120)  # empty at 1000 s
    clock.at += 30
    for caller in ("a", "b", "c"):  # the fourth bucket: over the cap, none full yet
        limiter.take(caller)
    assert set(limiter._buckets) == {"noisy", "a", "b", "c"}
    # Forgetting "noisy" now would hand it a full bucket: it has earned 60 requests, not 120.
    assert _granted(limiter, "noisy", 200) == 60
    clock.at += 60  # every bucket last touched a minute ago is full again
    limiter.take("d")
    assert set(limiter._buckets) == {"d"}
    assert _granted(limiter, "noisy", 200) == 120  # a forgotten caller starts full, as it was
