"""Time and identifiers, swappable in tests."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


def new_id() -> str:
    """Random 128-bit id as 32 hex characters."""
    return uuid.uuid4().hex
