"""A restated memory's links, carried over to the memory it was folded into
(docs/consolidation.md#what-it-changes), so what the space related stays related among its
current memories; the retired memory keeps its own edges, as history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memspace.domain.consolidation import CONSOLIDATOR
from memspace.domain.models import Memory, Relation, RelationType
from memspace.services.consolidation.pass_types import ConsolidationPorts


def carried_links(store: ConsolidationPorts, space_id: str, keep: Memory, olds: Sequence[Memory],
                  now: datetime, pass_id: str) -> list[Relation]:
    """The EXTENDS and DERIVES edges of the memories folded into `keep`, moved to `keep`, to
    active memories other than the fold's own, each in its own direction: what extended or was
    drawn from the folded memory extends or is drawn from the same fact said by `keep`, even
    where `keep` was written after it. An UPDATES stays where it was, since the kept memory
    replaced nothing."""
    retired = {m.id for m in olds}
    wanted = [(r, old, r.target_id if r.source_id == old.id else r.source_id)
              for old in olds for r in store.relations.relations_of(space_id, old.id)
              if r.type is not RelationType.UPDATES]
    wanted = [(r, old, other) for r, old, other in wanted
              if other != keep.id and other not in retired]
    if not wanted:
        return []
    others = {m.id: m for m in store.reads.get_memories(
        space_id, sorted({other for _, _, other in wanted}))}
    carried: dict[tuple[str, str], Relation] = {}
    for r, old, other_id in wanted:
        other = others.get(other_id)
        if other is None or not other.active:
            continue
        source, target = (keep, other) if r.source_id == old.id else (other, keep)
        if (target.id, source.id) in carried:
            continue  # the pair is joined once, whichever way the first edge points
        carried.setdefault((source.id, target.id), Relation(
            source.id, target.id, r.type, now, CONSOLIDATOR,
            f"carried over from '{old.id}', folded into '{keep.id}' "
            f"(consolidation pass {pass_id})"))
    return list(carried.values())
