"""Concurrent calls that want the same work become one batch (the group commit pattern).

The first caller to find the worker idle runs every request waiting at that moment as one
batch; the others wait for their own results, and the next batch starts as soon as that one
ends. An idle process pays nothing (a batch of one); a busy one pays less per request when the
batch shares its cost:
- embeddings (embeddings/local.py): 16 agents adding at once each ask for one vector. Run side
  by side their forward passes fought over numpy's BLAS threads: on 2 cores, 16 threads
  embedding one text each got 58 vectors/s (p95 525 ms); as one pass, 147/s (p95 137 ms),
  since the weights are read once per pass, not once per text;
- vector products (stores/vector_cache.py): the similar-memories check after each of those
  adds reads the space's whole matrix (150 MB at 100,000 memories); the queries waiting at
  once are one matrix product, which reads it once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Request = TypeVar("Request")
Result = TypeVar("Result")


@dataclass
class _Call(Generic[Request, Result]):
    request: Request
    result: Result | None = None
    error: BaseException | None = None
    done: bool = False


class Coalescer(Generic[Request, Result]):
    """Runs `run` on every request waiting when the worker comes free; `run` returns one result
    per request, in order. If it raises, every request of that batch fails with the error."""

    def __init__(self, run: Callable[[list[Request]], Sequence[Result]]) -> None:
        self._run = run
        self._turn = threading.Condition()
        self._waiting: list[_Call[Request, Result]] = []
        self._busy = False

    def __call__(self, request: Request) -> Result:
        mine: _Call[Request, Result] = _Call(request)
        with self._turn:
            self._waiting.append(mine)
            while self._busy and not mine.done:
                self._turn.wait()
            if not mine.done:  # the worker is free and this call still waits: run them all
                self._busy = True
                batch, self._waiting = self._waiting, []
        if not mine.done:
            try:
                self._serve(batch)
            finally:
                with self._turn:
                    self._busy = False
                    self._turn.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.result  # type: ignore[return-value]  # set with done, by _serve

    def _serve(self, batch: list[_Call[Request, Result]]) -> None:
        try:
            results = self._run([call.request for call in batch])
        except BaseException as exc:  # every call of the batch fails with it
            for call in batch:
                call.error, call.done = exc, True
            return
        for call, result in zip(batch, results, strict=True):
            call.result, call.done = result, True
