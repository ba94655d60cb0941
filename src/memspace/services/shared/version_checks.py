"""Optimistic concurrency on facts: a caller that read version N may change the fact only while
N is still its current version.

A memory's version moves only when the memory stops being current (a correction supersedes it,
and the correction carries the next number; forgetting bumps it). Both happen in the store's
write transaction, which refuses to supersede or forget a memory that is no longer active — so
the check here, before the write, and that refusal inside it together are the compare-and-set:
a writer that loses the race is told which version won (`after_lost_race`).
"""

from __future__ import annotations

from memspace.domain.errors import Conflict, InvalidInput, StaleVersion
from memspace.domain.models import Memory
from memspace.domain.ports import MemoryReadStore

# Correction chains are short; the bound only guards against a corrupt loop.
MAX_CHAIN = 50


def head_of(store: MemoryReadStore, space_id: str, memory: Memory) -> Memory:
    """The memory that now carries this fact: the end of its chain of corrections."""
    head = memory
    for _ in range(MAX_CHAIN):
        if head.active or not head.invalidated_by:
            break
        nxt = store.get_memory(space_id, head.invalidated_by)
        if nxt is None:
            break
        head = nxt
    return head


def check_version(store: MemoryReadStore, space_id: str, memory: Memory, expected: int | None) -> None:
    """Raises StaleVersion when `expected` is not the fact's current version, Conflict when it
    is but names a memory that is no longer current. None skips the check."""
    if expected is None:
        return
    if expected < 1:
        raise InvalidInput("expectedVersion starts at 1; pass the `version` getMemory or "
                           "search_memory showed")
    if memory.active and memory.version == expected:
        return
    head = head_of(store, space_id, memory)
    if head.version != expected:
        raise StaleVersion(memory.id, expected, head.version, head.id)
    if not head.active:
        raise Conflict(f"memory '{head.id}' (v{head.version}) was forgotten: "
                       f"{head.forget_reason or 'no reason given'}; nothing to change")
    raise Conflict(f"memory '{memory.id}' is not the current version of this fact; the current "
                   f"one is '{head.id}' (v{head.version}): pass memoryId='{head.id}'")


def after_lost_race(store: MemoryReadStore, space_id: str, memory_id: str, expected: int,
                    lost: Conflict) -> Conflict:
    """What to raise when the store refused a write that passed `check_version`: a StaleVersion naming
    the version that won, or the store's own Conflict when the memory is still current."""
    now = store.get_memory(space_id, memory_id)
    if now is None or now.active:
        return lost
    head = head_of(store, space_id, now)
    return StaleVersion(memory_id, expected, head.version, head.id)
