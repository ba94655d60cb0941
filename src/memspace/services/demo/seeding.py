"""The demo (`memspace seed`, `memspace serve --demo`): spaces, keys, memories with history, and
documents, loaded from a plan file through the same services the tools use.

Memories are added, corrected (UPDATES) and documents ingested exactly as an agent would, each
by the key the plan names. EXTENDS and DERIVES come from a model's judgement in real use; the
demo must not depend on a model, so the plan states them and they are written as the relation
alone (`WriteBatch` with no memories), the way the add pipeline writes the ones a model found.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from memspace.domain.errors import Conflict, InvalidInput
from memspace.domain.graph_port import WithDirectory, WithWrites
from memspace.domain.models import Document, Relation, RelationType
from memspace.domain.ports import Clock, WriteBatch
from memspace.services.access import AccessService, AdminService, Principal, parse_grant
from memspace.services.demo.demo_conflicts import ConflictPlan, ConflictSeeds
from memspace.services.ingestion import IngestionService
from memspace.services.memories import AddRequest, MemoryService

T = TypeVar("T")


class SpacePlan(BaseModel):
    slug: str
    name: str
    description: str = ""


class KeyPlan(BaseModel):
    name: str
    grants: dict[str, Literal["r", "rw"]]
    default: str | None = None


class MemoryPlan(BaseModel):
    ref: str
    space: str
    by: str
    content: str
    category: str | None = None
    corrects: str | None = None
    extends: list[str] = []
    derives: list[str] = []
    reason: str | None = None
    type: str | None = None  # domain/lifecycle.py's MemoryType; a note when absent


class DocumentPlan(BaseModel):
    space: str
    by: str
    file: str
    title: str | None = None


class SeedPlan(BaseModel):
    spaces: list[SpacePlan]
    keys: list[KeyPlan]
    memories: list[MemoryPlan] = []
    documents: list[DocumentPlan] = []
    conflicts: list[ConflictPlan] = []  # one of each kind in the demo (docs/conflicts.md)


@dataclass
class SeedReport:
    spaces: list[str] = field(default_factory=list)  # slugs, in the plan's order
    keys: dict[str, str] = field(default_factory=dict)  # key name -> raw key, shown once
    memories: int = 0
    relations: int = 0
    documents: list[Document] = field(default_factory=list)


class SeedPorts(WithDirectory, WithWrites, Protocol):
    """What loading a seed plan reads and writes beyond the services it drives."""


class Seeder:
    def __init__(self, admin: AdminService, access: AccessService, memories: MemoryService,
                 ingestion: IngestionService, store: SeedPorts, clock: Clock,
                 conflicts: ConflictSeeds | None = None) -> None:
        self._conflicts = conflicts
        self._admin = admin
        self._access = access
        self._memories = memories
        self._ingestion = ingestion
        self._store = store
        self._clock = clock

    def load(self, raw_plan: str, read: Callable[[str], bytes],
             progress: Callable[[str], None] = lambda _: None) -> SeedReport:
        """Load the plan (JSON) into a store that has none of its spaces; `read` gives a
        document's bytes by its path in the plan.

        Raises:
            InvalidInput: the plan does not parse or names something it does not define.
            Conflict: one of its spaces already exists (the demo loads once).
        """
        try:
            plan = SeedPlan.model_validate_json(raw_plan)
        except ValidationError as exc:
            raise InvalidInput(f"the seed plan is not valid: {exc}") from exc
        taken = [s.slug for s in plan.spaces if self._store.directory.get_space_by_slug(s.slug)]
        if taken:
            raise Conflict(f"space(s) {', '.join(taken)} already exist: the demo loads into a "
                           "store without them (use another MEMSPACE_DATA_DIR for a fresh one)")
        report = SeedReport()
        for space in plan.spaces:
            report.spaces.append(self._admin.create_space(space.slug, space.name,
                                                          space.description).slug)
        agents: dict[str, Principal] = {}
        for key in plan.keys:
            grants = dict(parse_grant(f"{slug}:{level}") for slug, level in key.grants.items())
            created = self._admin.create_key(key.name, grants, key.default)
            report.keys[key.name] = created.raw
            agents[key.name] = self._access.authenticate(created.raw)
        ids: dict[str, str] = {}
        for memory in plan.memories:
            self._memory(memory, _named(agents, memory.by), ids, report)
        progress(f"{report.memories} memories, {report.relations} relations")
        if self._conflicts is not None and plan.conflicts:
            for conflict in plan.conflicts:
                self._conflicts.seed(conflict, _named(agents, conflict.by), ids)
            progress(f"{len(plan.conflicts)} open conflicts")
        for document in plan.documents:
            who = _named(agents, document.by)
            uploaded = self._ingestion.upload(who, document.file.rsplit("/", 1)[-1],
                                              read(document.file), document.space, document.title)
            report.documents.append(self._ingestion.process(uploaded.document))
            progress(f"{document.file}: {report.documents[-1].fact_count} facts")
        return report

    def _memory(self, plan: MemoryPlan, who: Principal, ids: dict[str, str],
                report: SeedReport) -> None:
        if plan.corrects:
            added = self._memories.correct(who, _named(ids, plan.corrects), plan.content,
                                           plan.space, plan.category, plan.reason)
        else:
            added = self._memories.submit(who, AddRequest(plan.content, plan.space, plan.category,
                                                          memory_type=plan.type))
        [memory] = added.memories
        ids[plan.ref] = memory.id
        report.memories += 1
        report.relations += len(added.relations)
        links = [(RelationType.EXTENDS, ref) for ref in plan.extends]
        links += [(RelationType.DERIVES, ref) for ref in plan.derives]
        if links:
            at = self._clock.now()
            relations = [Relation(memory.id, _named(ids, ref), kind, at, who.actor, plan.reason)
                         for kind, ref in links]
            self._store.writes.write(WriteBatch(memory.space_id, [], relations, at=at))
            report.relations += len(relations)


def _named(known: Mapping[str, T], name: str) -> T:
    if name not in known:
        raise InvalidInput(f"the seed plan names '{name}' before defining it")
    return known[name]
