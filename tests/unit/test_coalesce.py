"""Concurrent calls share one batch (coalesce.py), as the embedder uses it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from memspace.runtime.coalesce import Coalescer


class Model:
    """Vectors that name their text; the first call can be held until released."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.first_started = threading.Event()
        self.release_first = threading.Event()
        self.fail_on = fail_on

    def encode(self, calls: list[list[str]]) -> list[list[list[float]]]:
        """One batch: the texts of every call waiting, each call's vectors back apart."""
        texts = [t for call in calls for t in call]
        self.calls.append(texts)
        if len(self.calls) == 1:
            self.first_started.set()
            assert self.release_first.wait(10)
        if self.fail_on in texts:
            raise RuntimeError("the model broke")
        return [[[float(len(t)), float(ord(t[0]))] for t in call] for call in calls]


def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.001)


def run(coalescer: Coalescer[list[str], list[list[float]]], texts: list[str],
        results: dict[str, object]) -> threading.Thread:
    def call() -> None:
        try:
            results[texts[0]] = coalescer(texts)
        except RuntimeError as exc:
            results[texts[0]] = exc

    thread = threading.Thread(target=call)
    thread.start()
    return thread


def test_an_idle_model_runs_a_call_alone() -> None:
    model = Model()
    model.release_first.set()
    assert Coalescer(model.encode)(["ab", "c"]) == [[2.0, 97.0], [1.0, 99.0]]
    assert model.calls == [["ab", "c"]]


def test_calls_waiting_for_a_busy_model_share_the_next_pass_and_get_their_own_rows() -> None:
    model = Model()
    coalescer = Coalescer(model.encode)
    results: dict[str, object] = {}
    first = run(coalescer, ["first"], results)
    assert model.first_started.wait(10)
    others = [run(coalescer, [name, name + "!"], results) for name in ("b", "cc", "ddd")]
    until(lambda: len(coalescer._waiting) == 3)
    model.release_first.set()
    for thread in [first, *others]:
        thread.join(10)
    assert len(model.calls) == 2  # the three waiting calls became one pass
    assert sorted(model.calls[1]) == sorted(["b", "b!", "cc", "cc!", "ddd", "ddd!"])
    assert results["first"] == [[5.0, 102.0]]
    for name in ("b", "cc", "ddd"):
        assert results[name] == [[float(len(name)), float(ord(name[0]))],
                                 [float(len(name) + 1), float(ord(name[0]))]]


def test_a_failed_pass_fails_each_of_its_calls_and_the_next_one_runs() -> None:
    model = Model(fail_on="bad")
    coalescer = Coalescer(model.encode)
    results: dict[str, object] = {}
    first = run(coalescer, ["first"], results)
    assert model.first_started.wait(10)
    others = [run(coalescer, [text], results) for text in ("bad", "fine")]
    until(lambda: len(coalescer._waiting) == 2)
    model.release_first.set()
    for thread in [first, *others]:
        thread.join(10)
    assert isinstance(results["bad"], RuntimeError) and isinstance(results["fine"], RuntimeError)
    assert coalescer(["again"]) == [[5.0, 97.0]]


def test_the_error_reaches_a_caller_that_ran_the_pass_itself() -> None:
    model = Model(fail_on="bad")
    model.release_first.set()
    with pytest.raises(RuntimeError, match="broke"):
        Coalescer(model.encode)(["bad"])
