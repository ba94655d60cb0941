"""Server warm-up: the model and the vector caches load side by side, and one failing does not
keep the other from loading."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from memspace.domain.errors import Unavailable
from memspace.startup.app import _warm


class Step:
    def __init__(self, fail: bool = False, wait_for: threading.Event | None = None) -> None:
        self.started = threading.Event()
        self.fail, self.wait_for, self.done = fail, wait_for, False

    def warm_up(self) -> None:
        self.started.set()
        if self.wait_for is not None:
            assert self.wait_for.wait(timeout=30), "the other warm-up never started"
        if self.fail:
            raise Unavailable("model files missing")
        self.done = True


def test_caches_warm_while_the_model_loads_and_despite_its_failure() -> None:
    search = Step()
    # the model's warm-up only finishes once the caches' has started: run one after the
    # other, this would wait forever (here: fail after 30 s)
    embedder = Step(fail=True, wait_for=search.started)
    container: Any = SimpleNamespace(embedder=embedder, search=search)
    warmed = threading.Event()
    _warm(container, warmed)
    assert search.done and embedder.started.is_set()
    assert warmed.is_set()  # readiness follows even though the model failed to load


def test_what_warm_up_built_is_left_out_of_later_collections() -> None:
    import gc

    gc.unfreeze()
    kept = [object() for _ in range(1000)]  # stands for the model and the caches
    container: Any = SimpleNamespace(embedder=Step(), search=Step())
    try:
        _warm(container, threading.Event())
        assert gc.get_freeze_count() >= len(kept)
        assert not any(o is kept for o in gc.get_objects())  # no longer tracked by generation
    finally:
        gc.unfreeze()
