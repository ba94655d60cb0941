"""The `asOf` / `knownAt` arguments of the reads (docs/time.md): checked once here, for every
surface, into a domain.bitemporal.TimeSlice; and the timeline getMemory shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memspace.domain.bitemporal import TimeSlice, superseded_at, utc, valid_from_of
from memspace.domain.errors import InvalidInput
from memspace.domain.models import Memory, RelationType
from memspace.domain.ports import Clock, MemoryReadStore, RelationStore
from memspace.services.shared import version_checks

EXAMPLE = "2026-05-01T09:00:00Z"


def instant(value: str | datetime | None, name: str) -> datetime | None:
    """An ISO 8601 time (a date alone is its midnight; no offset is UTC) in UTC, or None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"{name} '{value}' is not a time: pass ISO 8601, e.g. {name}=\"{EXAMPLE}\" "
                "(or a date, 2026-05-01, meaning its midnight UTC)") from None
    try:
        return utc(parsed)
    except (OverflowError, ValueError):
        raise InvalidInput(f"{name} '{value}' is out of range: pass a time such as "
                           f"{EXAMPLE}") from None


def time_slice(as_of: str | datetime | None, known_at: str | datetime | None,
               clock: Clock) -> TimeSlice | None:
    """The slice a read asks for, or None for current facts only. `knownAt` cannot lie in the
    future: the space cannot yet know what it will hold then."""
    valid, known = instant(as_of, "asOf"), instant(known_at, "knownAt")
    if valid is None and known is None:
        return None
    now = clock.now()
    if known is not None and known > now:
        raise InvalidInput(
            f"knownAt {known.isoformat()} is in the future (now is {now.isoformat()}): it asks "
            "what the space held at an instant that has not happened. Pass a past time, e.g. "
            f"knownAt=\"{EXAMPLE}\", or asOf for facts valid at a future time")
    return TimeSlice(valid, known)


def described(at: TimeSlice) -> str:
    """The slice in words, for the text people and models read (a past view, never today's)."""
    valid = at.as_of.isoformat().replace("+00:00", "Z") if at.as_of else None
    known = at.known_at.isoformat().replace("+00:00", "Z") if at.known_at else None
    if valid and known:
        return f"facts valid at {valid} as the space knew them at {known}"
    if valid:
        return (f"facts valid at {valid}, as the space knows them now (statuses and links as "
                "they stand today)")
    return (f"what the space held at {known}, corrections, marks and links made since "
            "ignored")


@dataclass(frozen=True)
class Period:
    """One version of a fact on its timeline: when it held (valid time), when the space held it
    (record time), who wrote it and why."""

    memory: Memory
    valid_from: datetime
    valid_to: datetime | None  # None: open
    recorded_at: datetime
    superseded_at: datetime | None  # None: still current (or forgotten: see memory)
    why: str | None  # the reason on its UPDATES to the version before; None for the first


def timeline(store: MemoryReadStore, relations: RelationStore, space_id: str,
             memory: Memory) -> list[Period]:
    """Every version of the fact `memory` belongs to, oldest first (version_checks.py walks
    the chain), each with its two intervals."""
    return [period_of(m, why) for m, why in chain(store, relations, space_id, memory)]


def period_of(memory: Memory, why: str | None) -> Period:
    """One version's place on its timeline, read from the memory as given (as it stands today,
    or as it stood at a knownAt: domain/as_known.py)."""
    return Period(memory, valid_from_of(memory), utc(memory.valid_to) if memory.valid_to else None,
                  utc(memory.created_at), superseded_at(memory), why)


def chain(store: MemoryReadStore, relations: RelationStore, space_id: str,
          memory: Memory) -> list[tuple[Memory, str | None]]:
    """The memories of one fact's line, oldest first, with the reason each was written (the
    reason on its UPDATES to the one before; None for the first)."""
    head = version_checks.head_of(store, space_id, memory)
    line: list[tuple[Memory, str | None]] = []
    current: Memory | None = head
    while current is not None and len(line) < version_checks.MAX_CHAIN:
        before = [r for r in relations.relations_of(space_id, current.id)
                  if r.type is RelationType.UPDATES and r.source_id == current.id]
        line.append((current, before[0].reason if before else None))
        current = store.get_memory(space_id, before[0].target_id) if before else None
    line.reverse()
    return line
