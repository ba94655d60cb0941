"""get_changes_since (docs/lifecycle.md): what changed in a space since a time or a cursor,
oldest first, a bounded page at a time, for an agent resuming after others worked.

It reads the store's change feed (MemoryReadStore.list_changes): every write stamps the memories
it creates, supersedes, forgets or marks with the space version it commits, and the feed orders
by (stamp, id) — commit order, then id — so memories written in the same millisecond are
neither skipped nor repeated, and a memory changed again later comes back at its latest change.

The cursor names the space and the filters it was made with (`types`); continuing it with other
filters is refused. Only `limit` and `maxTokens` may change between pages."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memspace.domain.errors import InvalidInput
from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import Change, ChangeAfter, MemoryReadStore
from memspace.domain.role_ports import LifecycleStore
from memspace.services.access import AccessService, Principal
from memspace.services.lifecycle.lifecycle import types_of
from memspace.services.shared import (
    decode_change_cursor,
    encode_change_cursor,
    fingerprint,
    memory_ids,
    short_ids,
    utc_time,
)

MAX_LIMIT = 100
DEFAULT_LIMIT = 20
MIN_TOKENS = 200
# What one change costs in an answer beyond its excerpt (ids, state, time, keys): counted once,
# so a page is bounded without rendering it twice.
ENTRY_OVERHEAD_TOKENS = 60
EXCERPT_CHARS = 240


@dataclass(frozen=True)
class MemoryChange:
    """One change: how the memory last changed and the memory as it is now."""

    kind: str  # created | updated | superseded | forgotten | marked
    memory: Memory
    stamp: int


@dataclass(frozen=True)
class ChangesPage:
    space: str  # slug
    changes: tuple[MemoryChange, ...]
    has_more: bool
    cursor: str  # pass back as `cursor` for the next page (also when empty: later changes)
    types: tuple[MemoryType, ...]
    # Each memory id the page names (a change's memory, what replaced it) -> its short id.
    short: Mapping[str, str] = field(default_factory=dict)


def kind_of(memory: Memory, marked_at: set[tuple[str, int]]) -> str:
    """How a memory last changed, from its state: forgotten or superseded when inactive;
    marked when its current version is a status mark's; updated when it was written as a
    later version of an earlier memory; else created."""
    if not memory.active:
        return "forgotten" if memory.forget_reason else "superseded"
    if (memory.id, memory.version) in marked_at:
        return "marked"
    return "updated" if memory.version > 1 else "created"


class ChangeFeed:
    def __init__(self, store: MemoryReadStore, marks: LifecycleStore, access: AccessService,
                 count_tokens: Callable[[str], int]) -> None:
        self._store = store
        self._marks = marks
        self._access = access
        self._count = count_tokens

    def since(self, principal: Principal, since: str | None = None, cursor: str | None = None,
              types: Sequence[str] | None = None, limit: int | None = None,
              max_tokens: int | None = None, space: str | None = None) -> ChangesPage:
        target = self._access.resolve(principal, space)
        if (since is None) == (cursor is None):
            raise InvalidInput("pass `since` (an ISO time, to start) or `cursor` (from the "
                               "previous page), not both and not neither")
        size = limit if limit is not None else DEFAULT_LIMIT
        if not 1 <= size <= MAX_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
        if max_tokens is not None and max_tokens < MIN_TOKENS:
            raise InvalidInput(f"maxTokens must be at least {MIN_TOKENS}")
        kinds = types_of(types)
        query = fingerprint("changes-since", target.space.id,
                            types=",".join(sorted(kinds)) if kinds else "")
        after: ChangeAfter | None = None
        pinned: datetime | None = None
        if cursor is not None:
            made_for, after, pinned = decode_change_cursor(cursor.strip())
            if made_for != query:
                raise InvalidInput(
                    "this cursor was made for another space or other `types`; continue it with "
                    "the same space and types (only limit and maxTokens may change), or start "
                    "again with `since`")
        else:
            pinned = _time(since or "")
        rows = self._store.list_changes(MemoryFilter(target.space.id, types=kinds), size + 1,
                                        after, pinned)
        more = len(rows) > size
        rows = rows[:size]
        kept = rows[:self._fit(rows, max_tokens)]
        more = more or len(kept) < len(rows)
        marked = {(r.memory_id, r.version)
                  for r in self._marks.marks_of(target.space.id, [c.memory.id for c in kept])}
        changes = tuple(MemoryChange(kind_of(c.memory, marked), c.memory, c.stamp) for c in kept)
        if kept:
            after = ChangeAfter(kept[-1].stamp, kept[-1].memory.id)
        named = [i for c in changes for i in (c.memory.id, c.memory.superseded_by) if i]
        short = short_ids(memory_ids(self._store, target.space.id), named) if named else {}
        return ChangesPage(target.space.slug, changes, more,
                           encode_change_cursor(query, after, pinned), kinds, short)

    def _fit(self, rows: Sequence[Change], max_tokens: int | None) -> int:
        """How many of the page's changes fit in `max_tokens` (at least one)."""
        if max_tokens is None:
            return len(rows)
        spent = 0
        for n, row in enumerate(rows):
            spent += self._count(row.memory.content[:EXCERPT_CHARS]) + ENTRY_OVERHEAD_TOKENS
            if spent > max_tokens and n > 0:
                return n
        return len(rows)


def _time(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput("`since` must be an ISO-8601 time such as 2026-05-01T09:00:00Z; to "
                           "continue a page pass its `cursor` as `cursor`") from None
    return utc_time(parsed, "since")
