"""A read started early runs in a process forked after the pool had threads (a pre-forking
server, mutmut's child per mutant): the child's pool is its own."""

from __future__ import annotations

import os
import signal
import time
from types import SimpleNamespace

from memspace.services.shared.early_reads import start_read

STORE = SimpleNamespace(concurrent_reads=True)
BOUND_S = 60  # turns a hang into a failure; not a timing assert


def test_a_forked_process_runs_the_reads_it_starts() -> None:
    assert start_read(STORE, lambda: "parent")() == "parent"  # the pool has a thread now
    child = os.fork()
    if child == 0:  # the child: exit 0 only if its read ran
        code = 1
        try:
            code = 0 if start_read(STORE, lambda: "child")() == "child" else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + BOUND_S
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            raise AssertionError(f"the forked process's read never ran in {BOUND_S} s")
        time.sleep(0.05)


def test_a_store_that_reads_one_thing_at_a_time_reads_when_collected() -> None:
    ran: list[str] = []
    collect = start_read(SimpleNamespace(concurrent_reads=False), lambda: ran.append("read") or 1)
    assert ran == []
    assert collect() == 1 and ran == ["read"]
