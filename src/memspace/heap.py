"""Give freed heap pages back to the system.

glibc keeps the pages a process freed for its next allocations, so the largest transient
allocation so far (a batch of embeddings, a space's rows read at once) sets the process's RSS
for good. `malloc_trim` returns them; elsewhere than glibc there is nothing to do.
"""

from __future__ import annotations

import contextlib
import ctypes


def release_freed_memory() -> None:
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to release
        ctypes.CDLL("libc.so.6").malloc_trim(0)
