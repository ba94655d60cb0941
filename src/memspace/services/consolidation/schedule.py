"""When `memspace serve` runs passes: every MEMSPACE_CONSOLIDATE_EVERY, over each space in turn
(one space at a time, one thread), and how a pass shares the model with requests.

Requests go first. Each model call an add makes is counted while it runs (`ModelTurns.request`);
a pass's call waits until none is running, and a pass makes one call at a time, at most
MEMSPACE_CONSOLIDATE_MAX_CALLS per pass. So at any moment the pass holds at most one call
beside the requests' own, and never starts one while a request's call is in flight (a request
that arrives during the pass's call waits at most that one call, as it would behind another
request)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from memspace.domain.errors import ExtractionFailed, MemspaceError
from memspace.domain.extraction import (
    Candidate,
    Comparison,
    Extraction,
    FactComparer,
    FactExtractor,
)
from memspace.domain.models import Usage
from memspace.services.consolidation.consolidation import ConsolidationService
from memspace.services.consolidation.pass_types import PassReport

log = logging.getLogger(__name__)

# How long a pass's model call waits for the requests' calls before it gives the group up to
# the next pass (a busy server's pass then does what needs no model).
MAX_WAIT_S = 60.0


class ModelTurns:
    """Counts the requests' model calls in flight; a pass's call waits for none."""

    def __init__(self) -> None:
        self._busy = 0
        self._changed = threading.Condition()

    @contextmanager
    def request(self) -> Iterator[None]:
        with self._changed:
            self._busy += 1
        try:
            yield
        finally:
            with self._changed:
                self._busy -= 1
                self._changed.notify_all()

    def wait_idle(self, timeout_s: float | None = None) -> bool:
        """Block until no request's call runs; False when `timeout_s` (MAX_WAIT_S) passed
        first."""
        with self._changed:
            return self._changed.wait_for(lambda: self._busy == 0,
                                          MAX_WAIT_S if timeout_s is None else timeout_s)


    def pass_turn(self) -> None:
        """A pass's call may start: no request's call runs. Raises ExtractionFailed when the
        requests kept the model busy past MAX_WAIT_S (the group is left for the next pass)."""
        if not self.wait_idle():
            raise ExtractionFailed("the model stayed busy with requests; left for the next pass")


class _Shared:
    """The model with the turns it takes; the model's name as provenance reads it."""

    def __init__(self, inner: FactExtractor, turns: ModelTurns) -> None:
        self._inner = inner
        self._turns = turns
        self.model = getattr(inner, "model", None)


class RequestModel(_Shared):
    """The extractor as requests use it: each call counted while it runs."""

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        with self._turns.request():
            return self._inner.extract(content, candidates, speaker, observed_at)


class PassModel(_Shared):
    """The extractor as a pass uses it: each call waits until no request's call runs."""

    def extract(self, content: str, candidates: Sequence[Candidate], speaker: str | None = None,
                observed_at: datetime | None = None) -> Extraction:
        self._turns.pass_turn()
        return self._inner.extract(content, candidates, speaker, observed_at)


class PassComparer:
    """The model's second look as a pass uses it: it waits for the requests' calls too."""

    def __init__(self, inner: FactComparer, turns: ModelTurns) -> None:
        self._inner = inner
        self._turns = turns

    def compare(self, fact: str, memories: Sequence[Candidate]) -> tuple[list[Comparison], Usage]:
        self._turns.pass_turn()
        return self._inner.compare(fact, memories)


class Schedule:
    """Runs a pass over every space, one after another, every `every_s` seconds (the first
    round one interval after start, so a server that starts serves first)."""

    def __init__(self, service: ConsolidationService, every_s: float,
                 on_report: Callable[[PassReport], None] | None = None) -> None:
        self._service = service
        self._every_s = every_s
        self._on_report = on_report
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0  # rounds finished (a test waits on it)
        self._round_done = threading.Condition()

    @property
    def enabled(self) -> bool:
        return self._every_s > 0

    def start(self) -> None:
        if not self.enabled or self._thread is not None:
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="memspace-consolidate",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop after the group in hand (a pass saves its record after every change)."""
        thread, self._thread = self._thread, None
        self._stopping.set()
        if thread is not None:
            thread.join(timeout_s)

    def wait_rounds(self, count: int, timeout_s: float) -> bool:
        """Block until `count` rounds have finished (False on timeout)."""
        with self._round_done:
            return self._round_done.wait_for(lambda: self.rounds >= count, timeout_s)

    def run_round(self) -> list[PassReport]:
        """One pass over each space, in turn."""
        reports = []
        for space in self._service.spaces():
            if self._stopping.is_set():
                break
            try:
                report = self._service.consolidate(space.id)
            except MemspaceError as exc:
                log.warning("consolidation of space %s failed: %s", space.slug, exc)
                continue
            except Exception:  # a bug in one space's pass must not stop the others'
                log.exception("consolidation of space %s failed unexpectedly", space.slug)
                continue
            reports.append(report)
            if self._on_report is not None:
                self._on_report(report)
        return reports

    def _run(self) -> None:
        while not self._stopping.wait(self._every_s):
            self.run_round()
            with self._round_done:
                self.rounds += 1
                self._round_done.notify_all()
