"""A memory and its links as the record stood at an instant of record time (`knownAt`,
docs/time.md): a read of the past shows what a current-only read answered then, so nothing a
later write set (a correction, a status mark, a relation, a check of its citations) shows.

A store keeps one row per memory and changes it in place: a correction sets `active`,
`status`, `invalidated_*` and `valid_to` on what it replaces, a mark sets `status` and bumps
`version`. Each change is dated (`invalidated_at`, the mark's `at`), so the earlier state is
derived here from the row and the marks, never stored twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from memspace.domain.bitemporal import forgotten, superseded_at, utc
from memspace.domain.lifecycle import MemoryStatus, Revision
from memspace.domain.models import Memory, Relation


def existed(memory: Memory, known_at: datetime) -> bool:
    """Whether the space held a record of `memory` at `known_at` that a read may show (a
    forgotten memory is erased from every reading of the past)."""
    return not forgotten(memory) and utc(memory.created_at) <= known_at


def as_known(memory: Memory, known_at: datetime, marks: Sequence[Revision] = ()) -> Memory:
    """`memory` as its record stood at `known_at`; `marks` are its status marks (any order).

    Marks are set on current versions only, so a version superseded by `known_at` shows as
    superseded with every mark it had; one superseded later was current then, with the status
    its last mark up to `known_at` gave it (none: current)."""
    later = [m for m in marks if utc(m.at) > known_at]
    earlier = sorted((m for m in marks if utc(m.at) <= known_at), key=lambda m: utc(m.at))
    shown = replace(memory, version=max(1, memory.version - len(later)))
    if memory.verified_at is not None and utc(memory.verified_at) > known_at:
        shown = replace(shown, verification=None, verified_at=None)  # checked after then
    replaced = superseded_at(memory)
    if replaced is not None and replaced <= known_at:
        return shown
    if not later and replaced is None:
        return shown
    status = MemoryStatus(earlier[-1].status) if earlier else MemoryStatus.CURRENT
    if replaced is None:
        return replace(shown, status=status)
    return replace(shown, status=status, active=True, invalidated_at=None, invalidated_by=None,
                   valid_to=None, forget_reason=None, forgotten_by=None)  # (an expiry's)


def relations_known(relations: Iterable[Relation], known_at: datetime,
                    held: Iterable[str]) -> list[Relation]:
    """The relations recorded by `known_at` whose two ends are among `held` (the memories the
    read shows as they existed then)."""
    ids = set(held)
    return [r for r in relations if utc(r.created_at) <= known_at
            and r.source_id in ids and r.target_id in ids]
