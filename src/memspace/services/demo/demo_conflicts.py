"""The demo's conflict queue (docs/conflicts.md): one conflict of each kind, made the way each
arises in real use where the demo can (a memory marked disputed through mark_memory, an UPDATES
written without its supersession as an interrupted correction leaves it) and recorded as the add
pipeline records it where that takes a model's judgement or a particular embedding model (a
suggested update, a contradiction, a refused write): the demo loads the same without a model
and on any embedder."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel

from memspace.domain.embedder import Embedder
from memspace.domain.errors import InvalidInput
from memspace.domain.graph_port import WithReads, WithWrites
from memspace.domain.lifecycle import MemoryType
from memspace.domain.models import Memory, Relation, RelationType
from memspace.domain.ports import Clock, WriteBatch
from memspace.services.access import AccessService, Principal
from memspace.services.lifecycle import LifecycleService
from memspace.services.memories import AddRequest, ConflictRecorder, MemoryService


class ConflictPlan(BaseModel):
    """One conflict of the demo. `memory` and `of` name memories of the plan by their `ref`
    (the newer side first); `content` is the new side of a two_heads or the refused claim of a
    write_conflict (of `type`)."""

    kind: Literal["two_heads", "disputed", "suggested_update", "contradiction", "write_conflict"]
    space: str
    by: str
    reason: str
    memory: str | None = None
    of: str | None = None
    content: str | None = None
    type: str | None = None


class ConflictSeedPorts(WithReads, WithWrites, Protocol):
    """What seeding conflicts reads and writes beyond the services it drives."""


class ConflictSeeds:
    def __init__(self, memories: MemoryService, lifecycle: LifecycleService,
                 recorder: ConflictRecorder, access: AccessService, store: ConflictSeedPorts,
                 embedder: Embedder, clock: Clock) -> None:
        self._memories = memories
        self._lifecycle = lifecycle
        self._recorder = recorder
        self._access = access
        self._store = store
        self._embedder = embedder
        self._clock = clock

    def seed(self, plan: ConflictPlan, who: Principal, ids: dict[str, str]) -> None:
        space_id = self._access.resolve(who, plan.space, write=True).space.id
        if plan.kind == "disputed":
            self._lifecycle.mark(who, self._ref(ids, plan.memory), "disputed", plan.reason,
                                 plan.space)
            return
        old = self._memory(space_id, self._ref(ids, plan.of))
        if plan.kind == "two_heads":
            added = self._memories.submit(who, AddRequest(plan.content, plan.space,
                                                          old.category, force=True))
            [new] = added.memories
            at = self._clock.now()
            self._store.writes.write(WriteBatch(space_id, [], [Relation(
                new.id, old.id, RelationType.UPDATES, at, who.actor, plan.reason)], at=at))
        elif plan.kind == "write_conflict":
            proposed = replace(
                self._memories.new_memory(space_id, plan.content or "", old.category,
                                           who.actor),
                type=MemoryType(plan.type or old.type.value))
            self._recorder.refused(space_id, old, proposed, self._similarity(proposed, old))
        else:
            new = self._memory(space_id, self._ref(ids, plan.memory))
            if plan.kind == "suggested_update":
                self._recorder.suggested(space_id, new, old, self._similarity(new, old),
                                         self._embedder.calibration.update_floor)
            else:
                self._recorder.contradiction(space_id, new, old, plan.reason)

    def _similarity(self, a: Memory, b: Memory) -> float:
        one, two = self._embedder.embed([a.content, b.content])
        return float(np.dot(np.asarray(one), np.asarray(two)))

    def _memory(self, space_id: str, memory_id: str) -> Memory:
        found = self._store.reads.get_memory(space_id, memory_id)
        if found is None:
            raise InvalidInput(f"the seed plan's conflict names memory '{memory_id}' of another "
                               "space")
        return found

    @staticmethod
    def _ref(ids: dict[str, str], ref: str | None) -> str:
        if not ref or ref not in ids:
            raise InvalidInput(f"the seed plan's conflict names '{ref}' before defining it")
        return ids[ref]
