"""A call that leaves a new event loop on its thread (what litellm's sync completion does) has
it closed, and the thread's own loop, or none, put back; a loop the thread already had is
never touched."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from memspace.llm.stray_loop import without_stray_loop


def on_a_thread(body: Callable[[], None]) -> None:
    """Runs `body` on a thread of its own, so no test loop of the main thread is involved."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            body()
        except BaseException as exc:  # reported to the test's thread
            failures.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failures:
        raise failures[0]


def test_a_loop_the_call_leaves_is_closed_and_the_thread_has_none_again() -> None:
    def body() -> None:
        left: list[asyncio.AbstractEventLoop] = []

        def call() -> str:
            left.append(asyncio.new_event_loop())
            asyncio.set_event_loop(left[0])
            return "answer"

        assert without_stray_loop(call) == "answer"
        assert left[0].is_closed()
        try:
            asyncio.get_event_loop()
        except RuntimeError:
            pass  # no loop on this thread: what it had before the call
        else:
            raise AssertionError("the thread still has a loop")

    on_a_thread(body)


def test_the_threads_own_loop_stays_open_and_set() -> None:
    def body() -> None:
        own = asyncio.new_event_loop()
        asyncio.set_event_loop(own)
        try:
            stray: list[asyncio.AbstractEventLoop] = []

            def call() -> None:
                stray.append(asyncio.new_event_loop())
                asyncio.set_event_loop(stray[0])

            without_stray_loop(call)
            assert stray[0].is_closed() and not own.is_closed()
            assert asyncio.get_event_loop() is own
            without_stray_loop(lambda: None)  # a call that leaves nothing changes nothing
            assert asyncio.get_event_loop() is own and not own.is_closed()
        finally:
            asyncio.set_event_loop(None)
            own.close()

    on_a_thread(body)


def test_an_exception_still_closes_what_the_call_left() -> None:
    def body() -> None:
        stray: list[asyncio.AbstractEventLoop] = []

        def call() -> None:
            stray.append(asyncio.new_event_loop())
            asyncio.set_event_loop(stray[0])
            raise ValueError("the model failed")

        try:
            without_stray_loop(call)
        except ValueError:
            pass
        else:
            raise AssertionError("the call's exception was swallowed")
        assert stray[0].is_closed()

    on_a_thread(body)
