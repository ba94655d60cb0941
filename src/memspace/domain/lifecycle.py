"""What kind of note a memory is (`type`) and where it stands (`status`), and the record of a
status change. No I/O: the rules that move a memory between statuses live in
services/lifecycle/lifecycle.py, the one place a status is set by hand."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class MemoryType(enum.StrEnum):
    """What a memory is, beside its free `category`. `note` when nobody said."""

    DECISION = "decision"
    CONSTRAINT = "constraint"
    ARCHITECTURE = "architecture"
    FACT = "fact"
    INCIDENT = "incident"
    FAILED_APPROACH = "failed_approach"
    PROCEDURE = "procedure"
    STATUS = "status"
    TASK = "task"
    PREFERENCE = "preference"
    REFERENCE = "reference"
    NOTE = "note"


class MemoryStatus(enum.StrEnum):
    """Where a memory stands.

    - current: what the space holds true now.
    - superseded: a correction (an UPDATES) replaced it; `supersededBy` names the replacement.
    - historical: was true, is kept for the record, no longer current (also what forgetting
      leaves).
    - disputed: someone doubts it; get_context shows it among the unresolved conflicts.
    - pending: saved, its facts not yet extracted (a note saved without waiting).
    """

    CURRENT = "current"
    SUPERSEDED = "superseded"
    HISTORICAL = "historical"
    DISPUTED = "disputed"
    PENDING = "pending"


# The statuses a caller may set with mark_memory; the others follow from writes.
MARKABLE = (MemoryStatus.HISTORICAL, MemoryStatus.DISPUTED, MemoryStatus.CURRENT)
# Types whose writes are checked for a contradicting neighbour (services/memories/restatement.py).
CLAIM_TYPES = (MemoryType.DECISION, MemoryType.CONSTRAINT, MemoryType.ARCHITECTURE)
DEFAULT_IMPORTANCE = 3
MIN_IMPORTANCE, MAX_IMPORTANCE = 1, 5


def model_type(value: str | None) -> MemoryType | None:
    """The type a model gave a fact, or None when it gave none or one that is not a type
    (a model's answer is never refused for it: the fact stays a note)."""
    text = (value or "").strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return MemoryType(text) if text else None
    except ValueError:
        return None


def status_today(active: bool, invalidated_by: str | None, forget_reason: str | None) -> str:
    """The status of a memory written before statuses existed: what its state means today."""
    if active:
        return MemoryStatus.CURRENT.value
    if invalidated_by and not forget_reason:
        return MemoryStatus.SUPERSEDED.value
    return MemoryStatus.HISTORICAL.value


@dataclass(frozen=True)
class Revision:
    """One status change of a memory, with who, when and why (mark_memory writes them; issue
    37's conflict queue reads them). `kind` is `marked` for now; `version` is the memory's
    version after the change."""

    space_id: str
    memory_id: str
    version: int
    kind: str
    status: str
    reason: str
    by: str
    at: datetime
