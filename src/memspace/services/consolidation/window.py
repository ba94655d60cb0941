"""What a consolidation pass reads (docs/consolidation.md#what-a-pass-reads): the memories
changed since its cursor, each one's closest older memories, and which pairs are decided
already."""

from __future__ import annotations

from collections.abc import Sequence

from memspace.domain.conflicts import ConflictKind, conflict_id
from memspace.domain.consolidation import PassCursor
from memspace.domain.embedder import Embedder
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import ChangeAfter
from memspace.services.consolidation.judging import Near
from memspace.services.consolidation.pass_types import ConsolidationPorts

# Memories read per pass at most; the rest is the next pass's (its cursor stops before them).
WINDOW = 2_000
# The older memories a changed one is grouped with: its closest, above the embedding model's
# UPDATES floor (Calibration.update_floor: below it two facts are not about the same thing).
NEIGHBOURS = 5
# Passes undone lately whose pairs a pass does not make again (people decided them).
UNDONE_LOOKBACK = 100
# An id after every id: the change feed resumes strictly after a stamp with it.
_AFTER_EVERY_ID = chr(0x10FFFF) * 4
# Kinds of queue entry whose existence, open or settled, means a pair was decided.
_DECIDING = (ConflictKind.RESTATEMENT, ConflictKind.REPLACEMENT, ConflictKind.CONTRADICTION,
             ConflictKind.SUGGESTED_UPDATE)


def changed_since(store: ConsolidationPorts, space_id: str,
                  since: PassCursor) -> list[tuple[Memory, int]]:
    """The memories changed after the cursor, oldest change first (then by id, as the feed
    orders one write's memories), each once, with the stamp of the write that changed it; at
    most WINDOW."""
    out: list[tuple[Memory, int]] = []
    after = ChangeAfter(since.version, since.after or _AFTER_EVERY_ID)
    while len(out) < WINDOW:
        page = store.reads.list_changes(MemoryFilter(space_id), min(500, WINDOW - len(out)),
                                        after=after)
        if not page:
            break
        out += [(c.memory, c.stamp) for c in page]
        after = ChangeAfter(page[-1].stamp, page[-1].memory.id)
    return out


def neighbours(store: ConsolidationPorts, embedder: Embedder, space_id: str,
               anchors: Sequence[Memory]) -> dict[str, list[Near]]:
    """Each anchor's closest other active memories of the space at or above the floor, older
    than the anchor (the newer side of a pair is the one whose relations are asked)."""
    floor = embedder.calibration.update_floor
    vectors = embedder.embed([m.content for m in anchors]) if anchors else []
    found: dict[str, list[Near]] = {}
    for memory, vector in zip(anchors, vectors, strict=True):
        hits = store.search.vector_search(MemoryFilter(space_id), vector, NEIGHBOURS + 1)
        found[memory.id] = [Near(h.memory, h.score) for h in hits
                            if h.memory.id != memory.id and h.memory.active
                            and h.score >= floor and _older(h.memory, memory)]
    return found


def undecided(store: ConsolidationPorts, space_id: str, newest: Memory, group: list[Near],
              undone: set[frozenset[str]]) -> list[Near]:
    """The group without the pairs a person, a queue entry or an undone pass decided."""
    ids = {n.memory.id: [conflict_id(space_id, kind, (newest.id, n.memory.id))
                         for kind in _DECIDING] for n in group}
    decided = store.consolidation.decided(space_id, [i for v in ids.values() for i in v])
    return [n for n in group if not decided.intersection(ids[n.memory.id])
            and frozenset((newest.id, n.memory.id)) not in undone]


def undone_pairs(store: ConsolidationPorts, space_id: str) -> set[frozenset[str]]:
    """The pairs of the space's recently undone passes (kept and retired, or an edge's ends)."""
    return {frozenset((c.kept, other))
            for r in store.consolidation.list_passes(space_id, UNDONE_LOOKBACK)
            if r.undone_at is not None for c in r.changes if c.kept is not None
            for other in (*c.retired, *((c.relation.target_id,) if c.relation else ()))}


def _older(a: Memory, b: Memory) -> bool:
    return (a.created_at, a.id) < (b.created_at, b.id)
