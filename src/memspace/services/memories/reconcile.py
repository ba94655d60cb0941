"""Turning a model's extraction into memories, edges and deactivations (docs/contract.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from memspace.domain.chunks import ChunkSource
from memspace.domain.extraction import Extraction
from memspace.domain.lifecycle import MemoryType, model_type
from memspace.domain.models import Memory, Relation, RelationType
from memspace.domain.ports import MemoryReadStore, WriteBatch
from memspace.domain.stated_dates import stated_start
from memspace.services.shared import head_of

# An UPDATES retires a memory, so it must be about the same thing. The model decides that, and
# the embedder's floor (Calibration.update_floor: MiniLM's in domain/embedder.py, e5's in
# embeddings/local.py) vetoes what it cannot be. Redo with bench/similar_pairs.py and
# bench/extraction_eval.py on your model and embedder.
# How many times a write that lost a race is re-aimed at the new head before giving up.
MAX_RETARGETS = 3


@dataclass
class Plan:
    memories: list[Memory]
    relations: list[Relation] = field(default_factory=list)
    supersede: dict[str, str] = field(default_factory=dict)  # old id -> new id
    known: list[Memory] = field(default_factory=list)  # facts already active in the space
    warnings: list[str] = field(default_factory=list)
    # For the conflict queue once written (services/memories/conflict_recorder.py): UPDATES the floor
    # refused (new, old, similarity) and pairs the model called contradictory (new, old, why).
    suggested: list[tuple[Memory, Memory, float]] = field(default_factory=list)
    contradicts: list[tuple[Memory, Memory, str]] = field(default_factory=list)

    def batch(self, space_id: str, at: datetime, source: ChunkSource | None = None) -> WriteBatch:
        return WriteBatch(space_id, self.memories, self.relations, self.supersede, at=at,
                          source=source)


def plan_extraction(
    extraction: Extraction,
    candidates: Sequence[Memory],
    fact_memory: Callable[[str, str], Memory],
    embed: Callable[[list[str]], list[list[float]]],
    find_known: Callable[[str], Memory | None],
    actor: str,
    floor: float,
) -> Plan:
    """Facts become memories (repeats of active memories are reported, not stored); relations
    point at candidates; an UPDATES below the similarity `floor` (the embedder's
    Calibration.update_floor) is refused with a warning and kept as a suggested update."""
    plan = Plan(memories=[])
    pending, clashes = _fresh_facts(extraction, fact_memory, find_known, plan.known)
    if not pending:
        return plan
    vectors = embed([m.content for m, _ in pending] + [c.content for c in candidates])
    fact_vectors = np.asarray(vectors[: len(pending)], dtype=np.float32)
    candidate_vectors = np.asarray(vectors[len(pending):], dtype=np.float32)
    for index, (memory, relations) in enumerate(pending):
        stored = replace(memory, embedding=vectors[index])
        plan.memories.append(stored)
        plan.contradicts.extend((stored, candidates[n], why) for n, why in clashes[index]
                                if 0 <= n < len(candidates))
        for number, kind, reason in relations:
            if not 0 <= number < len(candidates):
                continue
            target = candidates[number]
            if kind is RelationType.UPDATES:
                similarity = float(fact_vectors[index] @ candidate_vectors[number])
                if similarity < floor:
                    plan.warnings.append(
                        f"kept both: '{stored.content}' was said to replace '{target.content}', "
                        f"but they look unrelated (similarity {similarity:.2f} < "
                        f"{floor}); queued as a suggested update (list_conflicts)"
                    )
                    plan.suggested.append((stored, target, similarity))
                    continue
                plan.supersede.setdefault(target.id, stored.id)
                # The fact moves on: its new memory carries the next version number.
                stored = replace(stored, version=max(stored.version, target.version + 1))
                plan.memories[-1] = stored
            plan.relations.append(
                Relation(stored.id, target.id, kind, stored.created_at, actor, reason or None)
            )
    return plan


def _fresh_facts(
    extraction: Extraction,
    fact_memory: Callable[[str, str], Memory],
    find_known: Callable[[str], Memory | None],
    known: list[Memory],
) -> tuple[list[tuple[Memory, tuple[tuple[int, RelationType, str], ...]]],
           list[tuple[tuple[int, str], ...]]]:
    """plan_extraction's first step: each fact's memory with the relations the model gave it,
    and its contradictions; a repeat within the extraction is dropped, and one of an active
    memory goes to `known` instead."""
    pending: list[tuple[Memory, tuple[tuple[int, RelationType, str], ...]]] = []
    seen: set[str] = set()
    clashes: list[tuple[tuple[int, str], ...]] = []
    for fact in extraction.facts:
        memory = fact_memory(fact.text, fact.category)
        if memory.observed_at is None:  # the given observedAt wins, then a date stated
            stated = stated_start(fact.text, memory.created_at)  # (docs/time.md)
            memory = replace(memory, valid_from=stated) if stated is not None else memory
        given = model_type(fact.type)
        if given is not None and memory.type is MemoryType.NOTE:  # the caller's type wins
            memory = replace(memory, type=given)
        if memory.content_hash in seen:
            continue
        seen.add(memory.content_hash)
        found = find_known(memory.content_hash)
        if found is not None:
            known.append(found)
            continue
        pending.append((memory, tuple((r.candidate, r.type, r.reason) for r in fact.relations)))
        clashes.append(fact.contradicts)
    return pending, clashes


def retarget(plan: Plan, space_id: str, store: MemoryReadStore) -> bool:
    """After a lost race, aim each UPDATES at the memory that now heads the old one's chain.

    Two agents updating the same memory at once must end with one active head and no lost
    fact: the later write becomes an update of the earlier one. Returns False when nothing
    could be re-aimed (the caller then gives up with the Conflict).
    """
    moved = False
    for old_id in list(plan.supersede):
        current = store.get_memory(space_id, old_id)
        if current is None or current.active:
            continue
        new_id = plan.supersede.pop(old_id)
        head = head_of(store, space_id, current)
        if head.active and head.id != new_id:
            plan.supersede[head.id] = new_id
            plan.memories = [replace(m, version=max(m.version, head.version + 1))
                             if m.id == new_id else m for m in plan.memories]
            plan.relations = [
                replace(r, target_id=head.id)
                if r.source_id == new_id and r.target_id == old_id and r.type is RelationType.UPDATES
                else r
                for r in plan.relations
            ]
            plan.warnings.append(
                f"'{old_id}' changed while this was saved; updated its successor '{head.id}' instead"
            )
        moved = True
    return moved


def drop_repeats(plan: Plan, existing: dict[str, str], space_id: str, store: MemoryReadStore) -> None:
    """After the store refused facts that an active memory already holds (another add of the
    same text committed first): report those as known, and write the rest without them."""
    dropped = {m.id for m in plan.memories if m.content_hash in existing}
    plan.memories = [m for m in plan.memories if m.id not in dropped]
    plan.relations = [r for r in plan.relations if r.source_id not in dropped]
    plan.supersede = {old: new for old, new in plan.supersede.items() if new not in dropped}
    for memory_id in dict.fromkeys(existing.values()):
        known = store.get_memory(space_id, memory_id)
        if known is not None:
            plan.known.append(known)
