"""Give freed heap back to the system after a space is loaded or dropped.

A load reads a space in batches and the cache drops the least recently used spaces to make
room; the memory both free stays in the C allocator's arenas (glibc keeps freed pages of every
thread's arena for reuse), so a replica's RSS followed the largest loads it had made rather
than what it holds. glibc's malloc_trim returns those pages; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def _trimmer() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_TRIM = _trimmer()


def give_back() -> bool:
    """Return free heap pages to the system; True where the allocator can (glibc)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
