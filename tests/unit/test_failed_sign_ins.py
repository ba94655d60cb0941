"""Failed sign-ins on a moved clock: per client address and per key prefix, each a bucket of
MEMSPACE_AUTH_FAILURE_LIMIT a minute; checking never spends."""

from __future__ import annotations

from memspace.api.rate_limit import FailedSignIns, prefix_of


class Clock:
    def __init__(self) -> None:
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


def test_an_address_is_blocked_after_the_limit_and_freed_as_the_bucket_refills() -> None:
    clock = Clock()
    limits = FailedSignIns(3, clock)
    for n in range(3):
        assert limits.blocked("10.0.0.1", f"msk_key{n}xxx_secret") == 0
        limits.failed("10.0.0.1", f"msk_key{n}xxx_secret")
    assert limits.blocked("10.0.0.1", "msk_otherkey_secret") == 20  # one failure's worth: 20 s
    assert limits.blocked("10.0.0.2", "msk_otherkey_secret") == 0  # another address is not
    clock.at += 20
    assert limits.blocked("10.0.0.1", "msk_otherkey_secret") == 0


def test_a_key_prefix_is_blocked_from_every_address() -> None:
    limits = FailedSignIns(2, Clock())
    limits.failed("10.0.0.1", "msk_aaaaaaaa_guess1")
    limits.failed("10.0.0.2", "msk_aaaaaaaa_guess2")
    assert limits.blocked("10.0.0.3", "msk_aaaaaaaa_guess3") > 0
    assert limits.blocked("10.0.0.3", "msk_bbbbbbbb_guess3") == 0


def test_checking_spends_nothing_and_the_prefix_never_holds_the_secret_part() -> None:
    limits = FailedSignIns(1, Clock())
    for _ in range(5):
        assert limits.blocked("10.0.0.1", "msk_aaaaaaaa_secret") == 0
    assert prefix_of("  msk_aaaaaaaa_secretpart ") == "msk_aaaaaaaa"
