"""The conflict queue (docs/conflicts.md): memories of a space that disagree, and what a person
decided about them. No I/O: services/conflicts/conflicts.py finds and settles them, stores/*/conflicts.py
keep the ones that exist only as a record (a suggested update, a model's contradiction, a write
refused as a conflict) and write a settlement in one transaction."""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime

from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory

# The side of a `write_conflict` that was never stored: pass it as `keep` to store the
# proposal (it supersedes the memory it contradicted) or in `supersede` to drop it.
PROPOSAL = "proposal"


class ConflictKind(enum.StrEnum):
    """Why two memories are in the queue.

    - two_heads: an UPDATES whose two ends are both current (a supersession that never
      finished, e.g. two corrections that raced or an import).
    - disputed: a memory someone marked `disputed` (mark_memory).
    - suggested_update: a model said a new fact replaces an older one, but the embedding floor
      found them too unlike to retire the older one on its own: both were kept.
    - contradiction: a model said two facts contradict each other and replaced neither.
    - write_conflict: an add answered `conflict` (a claim contradicting a close claim of its
      type); the claim was not stored and waits here as the proposal.
    """

    TWO_HEADS = "two_heads"
    DISPUTED = "disputed"
    SUGGESTED_UPDATE = "suggested_update"
    CONTRADICTION = "contradiction"
    WRITE_CONFLICT = "write_conflict"
    # Left by a consolidation pass (docs/consolidation.md): memories that may say the same fact,
    # and a newer memory that may replace an older one, which no rule could settle alone.
    RESTATEMENT = "restatement"
    REPLACEMENT = "replacement"


# Kinds found from the memories themselves; the others are kept as records.
DERIVED = (ConflictKind.TWO_HEADS, ConflictKind.DISPUTED)


@dataclass(frozen=True)
class Proposal:
    """A claim an add did not store because it contradicted a close claim (write_conflict)."""

    content: str
    type: MemoryType
    by: str
    at: datetime
    content_hash: str
    category: str | None = None


@dataclass(frozen=True)
class RecordedConflict:
    """A conflict kept as a record: `memory_ids` are the stored sides (newer first), `proposal`
    the side never stored. Open until settled, or until one of its memories stops being current
    (or the proposal's text is stored after all)."""

    id: str
    space_id: str
    kind: ConflictKind
    memory_ids: tuple[str, ...]
    why: str
    by: str
    at: datetime
    proposal: Proposal | None = None


@dataclass(frozen=True)
class OpenConflict:
    """One entry of the queue: its memories side by side (each carries who wrote it and when),
    why it is a conflict, and `version`, the etag a resolution must quote: it changes when the
    conflict or any of its memories changes."""

    id: str
    kind: ConflictKind
    why: str
    memories: tuple[Memory, ...]
    at: datetime
    by: str
    version: str
    proposal: Proposal | None = None

    @property
    def sides(self) -> tuple[str, ...]:
        """What `keep` and `supersede` may name."""
        return tuple(m.id for m in self.memories) + ((PROPOSAL,) if self.proposal else ())


@dataclass(frozen=True)
class Settlement:
    """What resolve_conflict writes, in one transaction: `supersede` leave the current set
    (status superseded, replaced by `keep`), `keep` becomes current, and the decision is
    recorded on the conflict and in each memory's history. `expected` holds each stored side's
    version as listed: a side that moved refuses the whole settlement (stale_version)."""

    conflict: RecordedConflict
    keep: str | None  # a memory id; None when the kept side is the proposal, stored beforehand
    supersede: tuple[str, ...]
    reason: str
    by: str
    at: datetime
    expected: dict[str, int] = field(default_factory=dict)
    # When the superseded memories stopped holding (their valid_to): the kept memory's
    # valid_from, set by a consolidation pass so as-of reads keep answering what held then.
    # None leaves valid_to as it is.
    valid_to: datetime | None = None


def proposal_text(proposal: Proposal | None) -> str | None:
    """How a store keeps a proposal (JSON text); None for none."""
    if proposal is None:
        return None
    return json.dumps({"content": proposal.content, "type": proposal.type.value,
                       "by": proposal.by, "at": proposal.at.isoformat(),
                       "hash": proposal.content_hash, "category": proposal.category})


def proposal_from(text: str | None) -> Proposal | None:
    """A proposal kept by `proposal_text`."""
    if not text:
        return None
    data = json.loads(text)
    return Proposal(data["content"], MemoryType(data["type"]), data["by"],
                    datetime.fromisoformat(data["at"]), data["hash"], data.get("category"))


def conflict_id(space_id: str, kind: ConflictKind, memory_ids: tuple[str, ...],
                proposal_hash: str | None = None) -> str:
    """The same conflict always has the same id (a second report of it is not a second entry);
    the space is part of it, so no two spaces share one."""
    blob = "|".join((space_id, kind.value, *sorted(memory_ids), proposal_hash or ""))
    return "cf_" + hashlib.sha256(blob.encode()).hexdigest()[:24]


def etag(conflict_id_: str, memories: tuple[Memory, ...]) -> str:
    """The listed state of a conflict: its id and each memory's id, version and status."""
    blob = "|".join([conflict_id_, *(f"{m.id}:{m.version}:{m.status.value}" for m in memories)])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
