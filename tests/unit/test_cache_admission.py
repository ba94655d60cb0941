"""Which spaces a full cache admits (stores/cache_budget.py `admits`): a space comes in over the
spaces that would leave for it only when it was searched more often than each of them lately,
and at least twice;
the counts are halved every AGE_EVERY searches, so they follow what is searched now."""

from __future__ import annotations

import pytest

from memspace.stores import cache_budget
from memspace.stores.cache_budget import CacheBudget


def full_of(*spaces: tuple[str, int]) -> CacheBudget:
    """A budget exactly full of these (space, bytes), the first the least recently used."""
    budget = CacheBudget(sum(size for _, size in spaces))
    for space, size in spaces:
        assert budget.used(space, size) == []
    return budget


def search(budget: CacheBudget, space: str, times: int) -> None:
    for _ in range(times):
        budget.searched(space)


def test_while_there_is_room_any_space_comes_in_searched_or_not() -> None:
    budget = CacheBudget(1_000)
    budget.used("held", 400)
    assert budget.admits("new", 600)
    assert not budget.admits("new", 601)  # past the room: "held" would leave, searched as often


def test_a_full_budget_admits_only_over_spaces_searched_less_often() -> None:
    budget = full_of(("old", 500), ("recent", 500))
    search(budget, "old", 3)
    search(budget, "recent", 1)
    search(budget, "new", 3)
    assert not budget.admits("new", 500)  # as often as "old", the one that would leave
    budget.searched("new")
    assert budget.admits("new", 500)
    # twice the room: both would leave, and "new" beats each
    assert budget.admits("new", 1_000)
    search(budget, "recent", 4)
    assert not budget.admits("new", 1_000)  # "recent" is searched more now
    assert budget.admits("new", 500)  # ... but only "old" has to leave for this much


def test_a_full_budget_admits_no_space_searched_only_once() -> None:
    budget = full_of(("never-searched", 500))
    budget.searched("new")
    # more often than the space that would leave, but once is not worth a load
    assert not budget.admits("new", 500)
    budget.searched("new")
    assert budget.admits("new", 500)
    room = CacheBudget(1_000)
    room.searched("first")
    assert room.admits("first", 1_000)  # while it fits, the first search is enough


def test_counts_are_halved_so_a_space_searched_long_ago_can_be_pushed_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_budget, "AGE_EVERY", 10)
    budget = full_of(("was-hot", 100))
    search(budget, "was-hot", 8)  # 8 of the first 10 searches
    search(budget, "now-hot", 2)  # the 10th: counts halved to 4 and 1
    assert (budget.uses("was-hot"), budget.uses("now-hot")) == (4, 1)
    assert not budget.admits("now-hot", 100)
    search(budget, "now-hot", 10)  # halved again after the 20th: 2 and 5.5
    assert budget.uses("was-hot") == 2 and budget.uses("now-hot") > 2
    assert budget.admits("now-hot", 100)


def test_only_the_most_searched_spaces_counts_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_budget, "AGE_EVERY", 20)
    monkeypatch.setattr(cache_budget, "USES_KEPT", 2)
    budget = CacheBudget(100)
    search(budget, "a", 10)
    search(budget, "b", 6)
    search(budget, "c", 2)
    search(budget, "d", 2)  # 20 searches: halved, and only the two most searched kept
    assert [budget.uses(s) for s in "abcd"] == [5, 3, 0, 0]
