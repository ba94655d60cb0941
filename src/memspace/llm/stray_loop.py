"""A synchronous litellm completion leaves an asyncio event loop behind on a thread that had
none: after each call its timing hook asks `asyncio.get_event_loop()`, which on the main thread
makes a loop, sets it as the thread's and never closes it. In a process that later runs loops
of its own (a test run, a server started after a CLI call) that loop is garbage-collected
unclosed, with its socket pair, wherever the collection happens to run. `without_stray_loop`
closes a loop the call left and puts back what the thread had."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _thread_loop() -> asyncio.AbstractEventLoop | None:
    """The loop set on this thread, without making one (None with a policy that does not say)."""
    policy = asyncio.get_event_loop_policy()
    loop = getattr(getattr(policy, "_local", None), "_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


def without_stray_loop(call: Callable[[], T]) -> T:
    before = _thread_loop()
    try:
        return call()
    finally:
        after = _thread_loop()
        if after is not None and after is not before and not after.is_running():
            after.close()
            asyncio.set_event_loop(before)
