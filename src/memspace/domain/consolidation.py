"""The consolidation pass (docs/consolidation.md): what one pass over a space changed, and how a
store keeps it. No I/O: services/consolidation/ decides, stores/*/consolidation.py keep the
pass records, the cursor and the lease, and write what the pass decided in one transaction per
change."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memspace.domain.models import Relation, RelationType

# Who a pass's writes are recorded as (getMemory's invalidatedBy chain, the history's marks).
CONSOLIDATOR = "consolidator"


class ChangeKind(enum.StrEnum):
    """What a pass did to a group of memories.

    - restatement: memories saying the same fact became one; the others superseded by it.
    - replacement: a newer memory replaces an older one; the older superseded by it, its
      validity ending when the newer began to hold.
    - link: an EXTENDS or DERIVES edge a write could not see far enough to add.
    - expiry: a memory past its `expiresAt` left the current set as historical.
    - extraction: a memory saved flat (no model, or a failed extraction) handed to the model.
    - queued: a group the pass could not settle by rule, left in the conflict queue.
    """

    RESTATEMENT = "restatement"
    REPLACEMENT = "replacement"
    LINK = "link"
    EXPIRY = "expiry"
    EXTRACTION = "extraction"
    QUEUED = "queued"


# The kinds that take memories out of the current set (what an undo puts back).
RETIRING = (ChangeKind.RESTATEMENT, ChangeKind.REPLACEMENT, ChangeKind.EXPIRY)


@dataclass(frozen=True)
class PassChange:
    """One change of a pass.

    `kept` is the memory that holds (restatement, replacement), the source of a link, or the
    note handed to the model (extraction); `retired` the memories that left the current set,
    each with the version the pass left it at (`left_at`, same order): an undo puts back only
    a memory still at that version. A link's edge is `relation`. `conflict_id` names the queue
    entry a change settled or opened."""

    kind: ChangeKind
    why: str
    kept: str | None = None
    retired: tuple[str, ...] = ()
    left_at: tuple[int, ...] = ()
    relation: Relation | None = None
    conflict_id: str | None = None
    sides: tuple[str, ...] = ()  # a queued group's memories


@dataclass(frozen=True)
class PassCost:
    """What a pass read and spent: the figures `memspace consolidate` prints and /metrics counts."""

    memories_read: int = 0
    groups: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class PassCursor:
    """How far a space's passes have read its change feed: every memory changed by the writes
    up to space version `version`, except, when `after` names a memory, those of that last
    write whose id sorts after it. One write can change many memories (a document's chunks, a
    note's facts, an import), and a pass whose model budget ends inside one stops after the
    last memory it judged, so the next pass starts where it stopped instead of at the write's
    first memory."""

    version: int = 0
    after: str = ""  # "": the whole write `version`

    def ahead_of(self, other: PassCursor) -> bool:
        """Further along the feed than `other` (a cursor never moves back)."""
        return self._key() > other._key()

    def _key(self) -> tuple[int, int, str]:
        return (self.version, 1, "") if not self.after else (self.version, 0, self.after)


@dataclass(frozen=True)
class PassRecord:
    """A pass as the store keeps it. `since` (with `since_after`) is the cursor it read from,
    `until` (with `until_after`) the one it leaves for the next pass, as PassCursor's version
    and memory; `finished_at` None while it runs (or when it was killed: its changes so far
    are kept, each whole)."""

    id: str
    space_id: str
    started_at: datetime
    since: int
    until: int
    changes: tuple[PassChange, ...] = ()
    cost: PassCost = field(default_factory=PassCost)
    finished_at: datetime | None = None
    undone_at: datetime | None = None
    undone_by: str | None = None
    since_after: str = ""
    until_after: str = ""

    @property
    def start(self) -> PassCursor:
        return PassCursor(self.since, self.since_after)

    @property
    def end(self) -> PassCursor:
        return PassCursor(self.until, self.until_after)


def changes_text(changes: tuple[PassChange, ...]) -> str:
    """How a store keeps a pass's changes (JSON text)."""
    out: list[dict[str, Any]] = []
    for c in changes:
        item: dict[str, Any] = {"kind": c.kind.value, "why": c.why, "kept": c.kept,
                                "retired": list(c.retired), "leftAt": list(c.left_at),
                                "conflict": c.conflict_id, "sides": list(c.sides)}
        if c.relation is not None:
            r = c.relation
            item["relation"] = {"source": r.source_id, "target": r.target_id,
                                "type": r.type.value, "at": r.created_at.isoformat(),
                                "by": r.created_by, "reason": r.reason}
        out.append(item)
    return json.dumps(out)


def changes_from(text: str | None) -> tuple[PassChange, ...]:
    """The changes kept by `changes_text`."""
    out = []
    for item in json.loads(text or "[]"):
        rel = item.get("relation")
        relation = None if rel is None else Relation(
            rel["source"], rel["target"], RelationType(rel["type"]),
            datetime.fromisoformat(rel["at"]), rel["by"], rel.get("reason"))
        out.append(PassChange(ChangeKind(item["kind"]), item["why"], item.get("kept"),
                              tuple(item.get("retired", ())), tuple(item.get("leftAt", ())),
                              relation, item.get("conflict"), tuple(item.get("sides", ()))))
    return tuple(out)


def cost_text(cost: PassCost) -> str:
    return json.dumps({"memoriesRead": cost.memories_read, "groups": cost.groups,
                       "modelCalls": cost.model_calls, "promptTokens": cost.prompt_tokens,
                       "completionTokens": cost.completion_tokens, "seconds": cost.seconds})


def cost_from(text: str | None) -> PassCost:
    data = json.loads(text or "{}")
    return PassCost(int(data.get("memoriesRead", 0)), int(data.get("groups", 0)),
                    int(data.get("modelCalls", 0)), int(data.get("promptTokens", 0)),
                    int(data.get("completionTokens", 0)), float(data.get("seconds", 0.0)))
