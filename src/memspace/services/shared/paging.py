"""Opaque cursors for newest-first listings, bound to the query that made them."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, TypeVar

from memspace.domain.errors import InvalidInput
from memspace.domain.ports import ChangeAfter, PageAfter

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None
    # Each id the page names -> its short id (id_prefixes.py), when the listing computed them.
    short: Mapping[str, str] = field(default_factory=dict)


def fingerprint(kind: str, space_id: str, **filters: object) -> str:
    """Names the query a cursor belongs to: the listing, its space and its filters."""
    blob = json.dumps([kind, space_id, filters], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def utc_time(value: datetime, what: str = "time") -> datetime:
    """The same instant in UTC (a time without an offset is taken as UTC).

    Raises:
        InvalidInput: the instant lies outside years 1-9999 once in UTC, e.g.
            0001-01-01T00:00:00+14:00 (Python cannot represent it: OverflowError).
    """
    try:
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(
            f"{what} {value.isoformat()} is out of range: in UTC it falls outside years "
            "1-9999; pass a time such as 2026-05-01T09:00:00Z"
        ) from exc


def encode_cursor(query: str, after: PageAfter) -> str:
    payload = {"q": query, "t": after.created_at.isoformat(), "i": after.id}
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, query: str) -> PageAfter:
    """Raises InvalidInput for a damaged cursor or one made by a different query."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
        after = PageAfter(_in_range(datetime.fromisoformat(payload["t"])), str(payload["i"]))
        made_for = str(payload["q"])
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            "this cursor is damaged; pass back `nextCursor` exactly as returned, or start again "
            "without a cursor"
        ) from exc
    if made_for != query:
        raise InvalidInput(
            "this cursor belongs to a different listing (another space or other filters); "
            "repeat the call that produced it, or start again without a cursor"
        )
    return after


def _in_range(value: datetime) -> datetime:
    """A cursor's time in UTC; ValueError (a damaged cursor) when it cannot be one."""
    try:
        return utc_time(value)
    except InvalidInput as exc:
        raise ValueError(exc.message) from exc


def clamp_limit(limit: int, maximum: int) -> int:
    if limit < 1:
        raise InvalidInput(f"limit must be between 1 and {maximum}")
    return min(limit, maximum)


def encode_change_cursor(query: str, after: ChangeAfter | None, since: datetime | None) -> str:
    payload = {"q": query, "s": after.stamp if after else None, "i": after.id if after else None,
               "t": since.isoformat() if since else None}
    return "c" + base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def decode_change_cursor(cursor: str) -> tuple[str, ChangeAfter | None, datetime | None]:
    """(query fingerprint, position, pinned `since`) of a change-feed cursor.

    Raises:
        InvalidInput: not a change-feed cursor, or damaged.
    """
    try:
        if not cursor.startswith("c"):
            raise ValueError("not a change cursor")
        body = cursor[1:]
        payload = json.loads(base64.urlsafe_b64decode((body + "=" * (-len(body) % 4)).encode()))
        after = (ChangeAfter(int(payload["s"]), str(payload["i"]))
                 if payload["s"] is not None else None)
        since = _in_range(datetime.fromisoformat(payload["t"])) if payload["t"] else None
        return str(payload["q"]), after, since
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            "`since` must be an ISO-8601 time (e.g. 2026-05-01T09:00:00Z) or the `nextCursor` of "
            "an earlier call with `since`, passed back exactly"
        ) from exc
