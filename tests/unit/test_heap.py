"""The heap's tuning: few arenas and a fixed mapping threshold, unless the operator set glibc's
own variables for them."""

from __future__ import annotations

import pytest

from memspace.runtime import heap


class Libc:
    def __init__(self) -> None:
        self.set: dict[int, int] = {}

    def mallopt(self, param: int, value: int) -> int:
        self.set[param] = value
        return 1


def test_large_blocks_get_pages_of_their_own_and_arenas_are_few(
        monkeypatch: pytest.MonkeyPatch) -> None:
    libc = Libc()
    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: libc)
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    heap.lean_heap()
    assert libc.set == {heap._M_ARENA_MAX: 2, heap._M_MMAP_THRESHOLD: heap.MMAP_THRESHOLD}


def test_the_operators_settings_win(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = Libc()
    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: libc)
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    heap.lean_heap()
    assert libc.set == {}


def test_without_glibc_nothing_is_tuned(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise OSError(name)

    monkeypatch.setattr(heap.ctypes, "CDLL", missing)
    heap.lean_heap()  # no error: a musl or macOS process keeps its allocator's defaults
    heap.release_freed_memory()
