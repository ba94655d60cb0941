"""Writers of one space that arrive while a write is under way share the next commit, and each
gets its own outcome back."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from memspace.domain.errors import Conflict, Unavailable
from memspace.stores.neo4j.group_commit import GroupCommit


class Recorder:
    """A commit that holds its first call until released and records every group."""

    def __init__(self, fail: dict[str, BaseException] | None = None) -> None:
        self.groups: list[tuple[str, list[str]]] = []
        self.first_started = threading.Event()
        self.release = threading.Event()
        self.fail = fail or {}
        self.raise_all: BaseException | None = None

    def __call__(self, space: str, items: Sequence[str]) -> list[BaseException | None]:
        self.groups.append((space, list(items)))
        if len(self.groups) == 1:
            self.first_started.set()
            assert self.release.wait(10)
        if self.raise_all is not None and len(self.groups) > 1:
            raise self.raise_all
        return [self.fail.get(item) for item in items]


def submit_all(commit: GroupCommit[str], space: str, items: list[str],
               errors: dict[str, BaseException | None]) -> list[threading.Thread]:
    def one(item: str) -> None:
        try:
            commit.submit(space, item)
            errors[item] = None
        except BaseException as exc:
            errors[item] = exc

    threads = [threading.Thread(target=one, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    return threads


def queued(commit: GroupCommit[str], space: str, n: int) -> bool:
    """Wait until n writers wait behind the commit under way (no fixed sleep)."""
    deadline = threading.Event()
    for _ in range(1000):
        with commit._changed:
            state = commit._spaces.get(space)
            if state is not None and len(state.queue) == n:
                return True
        deadline.wait(0.01)
    return False


def test_writers_arriving_during_a_commit_share_the_next_one() -> None:
    recorder = Recorder()
    commit: GroupCommit[str] = GroupCommit(recorder)
    errors: dict[str, BaseException | None] = {}
    first = submit_all(commit, "s", ["a"], errors)
    assert recorder.first_started.wait(10)
    rest = submit_all(commit, "s", ["b", "c", "d", "e"], errors)
    assert queued(commit, "s", 4)
    recorder.release.set()
    for thread in first + rest:
        thread.join(10)
    assert recorder.groups[0] == ("s", ["a"])
    assert len(recorder.groups) == 2 and sorted(recorder.groups[1][1]) == ["b", "c", "d", "e"]
    assert errors == {"a": None, "b": None, "c": None, "d": None, "e": None}


def test_an_items_own_error_reaches_only_its_writer() -> None:
    duplicate = Conflict("already stored")
    recorder = Recorder(fail={"c": duplicate})
    commit: GroupCommit[str] = GroupCommit(recorder)
    errors: dict[str, BaseException | None] = {}
    first = submit_all(commit, "s", ["a"], errors)
    assert recorder.first_started.wait(10)
    rest = submit_all(commit, "s", ["b", "c", "d"], errors)
    assert queued(commit, "s", 3)
    recorder.release.set()
    for thread in first + rest:
        thread.join(10)
    assert errors == {"a": None, "b": None, "c": duplicate, "d": None}


def test_a_failed_transaction_fails_every_writer_in_it_and_the_next_commit_works() -> None:
    recorder = Recorder()
    recorder.raise_all = Unavailable("Neo4j went away")
    commit: GroupCommit[str] = GroupCommit(recorder)
    errors: dict[str, BaseException | None] = {}
    first = submit_all(commit, "s", ["a"], errors)
    assert recorder.first_started.wait(10)
    rest = submit_all(commit, "s", ["b", "c"], errors)
    assert queued(commit, "s", 2)
    recorder.release.set()
    for thread in first + rest:
        thread.join(10)
    assert errors["a"] is None
    assert errors["b"] is recorder.raise_all and errors["c"] is recorder.raise_all
    recorder.raise_all = None
    commit.submit("s", "f")  # nothing left locked or queued
    assert recorder.groups[-1] == ("s", ["f"])


def test_groups_are_bounded_and_spaces_do_not_wait_for_each_other() -> None:
    recorder = Recorder()
    commit: GroupCommit[str] = GroupCommit(recorder, max_group=2)
    errors: dict[str, BaseException | None] = {}
    first = submit_all(commit, "s", ["a"], errors)
    assert recorder.first_started.wait(10)
    commit.submit("other", "x")  # another space commits while "s" is busy
    assert recorder.groups[1] == ("other", ["x"])
    rest = submit_all(commit, "s", ["b", "c", "d"], errors)
    assert queued(commit, "s", 3)
    recorder.release.set()
    for thread in first + rest:
        thread.join(10)
    sizes = [len(items) for space, items in recorder.groups[2:] if space == "s"]
    assert sorted(sizes) == [1, 2] and all(v is None for v in errors.values())


def test_a_commit_answering_the_wrong_number_of_outcomes_is_an_error() -> None:
    commit: GroupCommit[str] = GroupCommit(lambda space, items: [])
    with pytest.raises(RuntimeError, match="one outcome per item"):
        commit.submit("s", "a")
