"""What a consolidation pass is built from and what it answers (docs/consolidation.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.consolidation import ChangeKind, PassChange, PassCost
from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.graph_port import (
    WithConflicts,
    WithConsolidation,
    WithDirectory,
    WithMarks,
    WithReads,
    WithRelations,
    WithSearch,
)
from memspace.domain.models import Memory, Space, Usage
from memspace.domain.ports import Clock


class ConsolidationPorts(WithDirectory, WithReads, WithRelations, WithSearch, WithConflicts,
                         WithMarks, WithConsolidation, Protocol):
    """The store roles a pass reads and writes."""


# Extracts a flat memory's facts with the model now (services/memories: the same rules as an
# add): what the model cost, or None when there was nothing to do (it has a job already).
ExtractNow = Callable[[Memory], Usage | None]


@dataclass(frozen=True)
class PassReport:
    """What `consolidate` did (or, dry, would do): its id (None for a dry run or when another
    pass held the space), its changes and what it cost."""

    pass_id: str | None
    space: Space
    dry_run: bool
    changes: tuple[PassChange, ...]
    cost: PassCost
    busy: bool = False  # another pass holds the space's lease: nothing was done

    def count(self, kind: ChangeKind) -> int:
        return sum(1 for c in self.changes if c.kind is kind)


@dataclass(frozen=True)
class UndoReport:
    space: Space
    pass_id: str
    restored: tuple[str, ...]
    skipped: tuple[str, ...]  # changed since the pass: left as they are
    unlinked: int
    by: str
    at: datetime


@dataclass(frozen=True)
class PassParts:
    """What every pass of a service uses: the store's roles, the embedder and clock, and with a
    model its extraction call, its second look, the flat memories' extraction and the budget."""

    store: ConsolidationPorts
    embedder: Embedder
    clock: Clock
    extractor: FactExtractor | None = None
    extract_now: ExtractNow | None = None
    comparer: FactComparer | None = None
    max_calls: int = 50
