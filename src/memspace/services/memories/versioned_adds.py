"""The adds that change an existing memory's line (docs/lifecycle.md): a restatement becomes
its next version (`updated`), a claim that contradicts a close decision is refused
(`conflict`, nothing stored), and `supersedes: [ids]` replaces memories outright. The
verdict itself is services/memories/restatement.py's; here it is written."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from memspace.domain.embedder import Embedder
from memspace.domain.errors import Conflict, DuplicateContent, InvalidInput, NotFound
from memspace.domain.graph_port import WithReads, WithWrites
from memspace.domain.models import (
    Memory,
    MemoryFilter,
    Relation,
    RelationType,
    ScoredMemory,
    Space,
)
from memspace.domain.ports import Clock, WriteBatch
from memspace.services.access import AccessService, Principal
from memspace.services.memories.add_types import AddRequest, AddResult, Clash
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.memory_parts import NearestMemories
from memspace.services.memories.memory_rules import category_of, type_of
from memspace.services.memories.restatement import NEIGHBOURS, judge
from memspace.services.shared import memory_id_of, new_id

RESTATED = "restated: the same claim, said more fully"
REPLACED = "replaces it (supersedes)"


class VersioningPorts(WithReads, WithWrites, Protocol):
    """The store roles that versioning an add or renaming a category call."""


class VersionedAdds:
    """Steps of a flat add that version or refuse it; `memory` is the new memory, embedded.
    A refused contradiction is left for the conflict queue (`conflicts`, when there is one)."""

    def __init__(self, store: VersioningPorts, embedder: Embedder, close: NearestMemories,
                 conflicts: ConflictRecorder | None = None) -> None:
        self._store = store
        self._embedder = embedder
        self._close = close
        self._conflicts = conflicts

    def neighbours(self, space: Space, memory: Memory) -> list[ScoredMemory]:
        """The active memories nearest the new one that `judged` weighs (and the add lists as
        similar from the same read: on a cold space each read is a pass or an index query)."""
        if memory.embedding is None:
            return []
        return self._close.nearest(space.id, memory.embedding, NEIGHBOURS)

    def judged(self, space: Space, request: AddRequest, memory: Memory,
               near: list[ScoredMemory]) -> AddResult | None:
        """`updated` or `conflict` when one of `near` (neighbours()) calls for it; None: add
        it as new."""
        if memory.embedding is None:
            return None
        verdict = judge(memory.content, memory.type, near,
                        self._embedder.calibration.update_floor, request.force)
        if verdict.memory is None:
            return None
        if verdict.kind == "conflict":
            if self._conflicts is not None:
                self._conflicts.refused(space.id, verdict.memory, memory, verdict.similarity)
            return AddResult("conflict", "flat", space.slug, [], clash=Clash(
                verdict.memory, verdict.similarity, memory.content, memory.type.value,
                request.category))
        old = verdict.memory
        given = type_of(request.memory_type)
        new = replace(memory, version=old.version + 1, type=given or old.type,
                      importance=(memory.importance if request.importance is not None
                                  else old.importance),
                      canonical=memory.canonical or old.canonical)
        return self._replacing(space, new, [old], RESTATED, "updated")

    def superseding(self, space: Space, request: AddRequest, memory: Memory) -> AddResult:
        """`supersedes: [ids]`: the new memory UPDATES each, which become superseded."""
        olds: list[Memory] = []
        for given in dict.fromkeys(i.strip() for i in request.supersedes):
            memory_id = memory_id_of(self._store.reads, space.id, given, "supersedes")
            old = self._store.reads.get_memory(space.id, memory_id)
            if old is None:
                raise NotFound(f"supersedes names '{memory_id}', which is not a memory of this "
                               "space; pass ids search_memory or a conflict answer gave")
            if not old.active:
                raise Conflict(f"memory '{memory_id}' is already {old.status.value}; pass the "
                               "current version's id (getMemory shows it)")
            olds.append(old)
        new = replace(memory, version=max(o.version for o in olds) + 1)
        return self._replacing(space, new, olds, REPLACED, "created")

    def _replacing(self, space: Space, new: Memory, olds: list[Memory], why: str,
                   status: str) -> AddResult:
        relations = [Relation(new.id, old.id, RelationType.UPDATES, new.created_at,
                              new.created_by, why) for old in olds]
        try:
            self._store.writes.write(WriteBatch(space.id, [new], relations,
                                         {old.id: new.id for old in olds}, at=new.created_at))
        except DuplicateContent as exc:  # the same text committed first by a concurrent add
            known = self._store.reads.get_memory(space.id, exc.existing[new.content_hash])
            if known is None:
                raise
            return AddResult("duplicate", "flat", space.slug, [known])
        return AddResult("updated" if status == "updated" else "created", "flat", space.slug,
                         [new], relations, superseded=[old.id for old in olds])


# A rename rewrites at most this many memories in its one write.
MAX_RENAMED = 2_000


class CategoryRenames:
    """rename_category: every current memory of a category gets its next version under the new
    name, in one write (the old versions superseded, kept as history)."""

    def __init__(self, store: VersioningPorts, embedder: Embedder, access: AccessService,
                 clock: Clock) -> None:
        self._store = store
        self._embedder = embedder
        self._access = access
        self._clock = clock

    def rename_category(self, principal: Principal, space: str | None, old: str | None,
                        new: str | None) -> tuple[str, list[Memory]]:
        target = self._access.resolve(principal, space, write=True)
        before, after = category_of(old), category_of(new)
        if not (old or "").strip() or not (new or "").strip():
            raise InvalidInput("pass the category to rename as `old` and its new name as `new`")
        if before == after:
            raise InvalidInput(f"the category is already called '{after}'")
        where = MemoryFilter(target.space.id, before)
        olds = self._store.reads.list_memories(where, MAX_RENAMED + 1)
        if len(olds) > MAX_RENAMED:
            raise InvalidInput(f"category '{before}' holds more than {MAX_RENAMED:,} memories; "
                               "one rename rewrites at most that many")
        if not olds:
            raise NotFound(f"no current memory of this space has category '{before}'")
        vectors = self._embedder.embed([m.content for m in olds])
        now = self._clock.now()
        news = [replace(m, id=new_id(), category=after, embedding=v, version=m.version + 1,
                        created_at=now, created_by=principal.actor, invalidated_at=None,
                        invalidated_by=None) for m, v in zip(olds, vectors, strict=True)]
        why = f"category renamed from '{before}' to '{after}'"
        relations = [Relation(n.id, o.id, RelationType.UPDATES, now, principal.actor, why)
                     for n, o in zip(news, olds, strict=True)]
        self._store.writes.write(WriteBatch(target.space.id, news, relations,
                                     {o.id: n.id for o, n in zip(olds, news, strict=True)},
                                     at=now))
        return target.space.slug, news
