"""Keep the process's heap small: freed pages back to the system, and large blocks on pages of
their own.

glibc keeps the pages a process freed for its next allocations, so the largest transient
allocation so far (a batch of embeddings, a space's rows read at once) sets the process's RSS
for good. `malloc_trim` returns them; elsewhere than glibc there is nothing to do.
"""

from __future__ import annotations

import contextlib
import ctypes
import os

# glibc's mallopt parameters (malloc.h).
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
# Blocks of at least this many bytes are mapped on their own and unmapped when freed. glibc
# starts at 128 KiB but raises the threshold to the size of every mapped block freed, up to 32
# MiB: after a few spaces left the vector cache, their successors' arrays came from the heap
# and stayed there. Two replicas at 200,000 memories (128 MB budget, bench_scale --reuse, two
# runs each): the highest RSS of each replica's life 395-398 / 382-383 MB against 444-454 /
# 395-417 MB, and 350-354 MB at the end against 366-376, with the same CPU per operation.
MMAP_THRESHOLD = 1 << 20


def lean_heap() -> None:
    """Few arenas and a fixed mapping threshold, unless the operator set them (glibc's own
    MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ win).

    glibc gives each busy thread its own malloc arena (up to 8 per core) and rarely returns
    their pages; the embedding workers' and the server's threads left ~60 MB in them.
    """
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to tune
        libc = ctypes.CDLL("libc.so.6")
        if "MALLOC_ARENA_MAX" not in os.environ:
            libc.mallopt(_M_ARENA_MAX, 2)
        if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
            libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_freed_memory() -> None:
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to release
        ctypes.CDLL("libc.so.6").malloc_trim(0)
