"""What was true when, and what the space knew when (docs/time.md).

Every memory has two half-open intervals, [from, to):

- valid time, when the fact held in the world: from its `valid_from` (the `observedAt` it was
  given, else when it was recorded) to the `valid_from` of the memory that superseded it, or
  open;
- record time, when the space held it as current: from `created_at` (recordedAt) to
  `invalidated_at` (supersededAt), or open.

A read narrowed by a `TimeSlice` keeps the memories `holds` accepts. The stores answer the same
rule in their own query languages (stores/sqlite/memories.py `filter_sql`,
stores/neo4j/cypher/fields.py `memory_filter`); the contract tests hold all three to one table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memspace.domain.models import Memory


@dataclass(frozen=True)
class TimeSlice:
    """A point in valid time (`as_of`), in record time (`known_at`), or both (a bitemporal
    point); both in UTC. Neither: current facts only (no slice is made then)."""

    as_of: datetime | None = None
    known_at: datetime | None = None


def utc(value: datetime) -> datetime:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


def valid_from_of(memory: Memory) -> datetime:
    """When the fact began to hold: as stored, else its observedAt, else when it was recorded."""
    if memory.valid_from is not None:
        return utc(memory.valid_from)
    if memory.observed_at is not None:
        return utc(memory.observed_at)
    return utc(memory.created_at)


def forgotten(memory: Memory) -> bool:
    """Forgetting erases from every reading of the past too, not only from today's. A memory
    retired at its expiry was not forgotten: it held until then."""
    return (memory.forgotten_by is not None or memory.forget_reason is not None) \
        and not expired(memory)


def expired(memory: Memory) -> bool:
    """Retired at its expiry (LifecycleStore.expire_due): its record ends at `expires_at`."""
    return (memory.expires_at is not None and memory.invalidated_at is not None
            and utc(memory.invalidated_at) == utc(memory.expires_at))


def superseded_at(memory: Memory) -> datetime | None:
    """When a correction replaced it (record time), None while current or when forgotten."""
    if forgotten(memory) or memory.invalidated_at is None:
        return None
    return utc(memory.invalidated_at)


def closed_intervals(memories: list[Memory]) -> list[Memory]:
    """Memories read from an export made before valid time (no validTo): each superseded one
    ends where what superseded it began, as migration 17 derives it for stored ones."""
    starts = {m.id: valid_from_of(m) for m in memories}
    return [replace(m, valid_to=starts.get(m.invalidated_by, m.invalidated_at))
            if m.valid_to is None and m.invalidated_by and not forgotten(m) else m
            for m in memories]


def holds(memory: Memory, at: TimeSlice) -> bool:
    """Whether a read at `at` shows `memory`:

    - `known_at` K only: it was current at K (recorded at or before K, not superseded by K);
    - `as_of` T only: it is valid at T as the space knows it now (valid_from <= T, and T before
      the valid_from of what superseded it, if anything did);
    - both: it was recorded by K and valid at T as the space knew it at K (a correction made
      after K has not yet closed its valid interval).

    A forgotten memory is never shown."""
    if forgotten(memory):
        return False
    replaced = superseded_at(memory)
    if at.known_at is not None:
        if utc(memory.created_at) > at.known_at:
            return False
        if replaced is not None and replaced > at.known_at:
            replaced = None  # not yet replaced at K
    if at.as_of is None:
        return replaced is None
    if valid_from_of(memory) > at.as_of:
        return False
    if replaced is None:
        return True
    return memory.valid_to is not None and at.as_of < utc(memory.valid_to)
