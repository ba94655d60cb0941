"""When a consolidation pass runs and how it shares the model (services/consolidation/schedule.py):
a pass's model call waits while a request's runs; the server's rounds go over every space."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

import pytest

import memspace.services.consolidation.schedule as schedule
from memspace.domain.consolidation import PassCost
from memspace.domain.errors import ExtractionFailed
from memspace.domain.extraction import Candidate, Extraction
from memspace.domain.models import Space
from memspace.services.consolidation import ModelTurns, PassModel, PassReport, RequestModel, Schedule

T0 = datetime(2026, 3, 1)


class Recording:
    """A model that records the order calls start in, and holds a call until released."""

    model = "test-model"

    def __init__(self) -> None:
        self.started: list[str] = []
        self.hold = threading.Event()
        self.inside = threading.Event()

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        self.started.append(content)
        if content == "request":
            self.inside.set()
            assert self.hold.wait(30)
        return Extraction(())


def test_a_pass_call_waits_for_the_request_call_in_flight() -> None:
    turns, model = ModelTurns(), Recording()
    request, background = RequestModel(model, turns), PassModel(model, turns)
    assert request.model == background.model == "test-model"  # provenance names the model
    asking = threading.Thread(target=lambda: request.extract("request", []))
    asking.start()
    assert model.inside.wait(30)
    waiting = threading.Thread(target=lambda: background.extract("pass", []))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and model.started == ["request"]  # held behind the request
    model.hold.set()
    asking.join(30)
    waiting.join(30)
    assert model.started == ["request", "pass"]


def test_a_pass_call_gives_up_when_requests_keep_the_model_busy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "MAX_WAIT_S", 0.05)
    turns, model = ModelTurns(), Recording()
    with turns.request(), pytest.raises(ExtractionFailed, match="left for the next pass"):
        PassModel(model, turns).extract("pass", [])
    assert model.started == []
    PassModel(model, turns).extract("pass", [])  # the request is done: the pass goes ahead
    assert model.started == ["pass"]


class Passes:
    """A consolidation service standing in for the real one: which spaces were passed over."""

    def __init__(self, spaces: list[str], failing: str | None = None) -> None:
        self._spaces = [Space(s, s, s, "", T0, T0) for s in spaces]
        self.passed: list[str] = []
        self._failing = failing

    def spaces(self) -> list[Space]:
        return self._spaces

    def consolidate(self, space: str, dry_run: bool = False) -> PassReport:
        self.passed.append(space)
        if space == self._failing:
            raise RuntimeError("a bug in one space's pass")
        found = next(s for s in self._spaces if s.id == space)
        return PassReport("cp_x", found, dry_run, (), PassCost())


def test_a_round_passes_over_every_space_and_one_failure_does_not_stop_the_others() -> None:
    service = Passes(["a", "b", "c"], failing="b")
    seen: list[str] = []
    schedule = Schedule(service, 0.01, on_report=lambda r: seen.append(r.space.id))  # type: ignore[arg-type]
    reports = schedule.run_round()
    assert service.passed == ["a", "b", "c"] and [r.space.id for r in reports] == ["a", "c"]
    assert seen == ["a", "c"]


def test_the_schedule_runs_rounds_until_stopped_and_zero_turns_it_off() -> None:
    service = Passes(["a"])
    schedule = Schedule(service, 0.01)  # type: ignore[arg-type]
    schedule.start()
    try:
        assert schedule.wait_rounds(2, 30)
    finally:
        schedule.stop()
    rounds = schedule.rounds
    assert not schedule.wait_rounds(rounds + 1, 0.1)  # stopped: no more rounds
    off = Schedule(Passes(["a"]), 0)  # type: ignore[arg-type]
    off.start()
    assert not off.enabled and not off.wait_rounds(1, 0.05)
