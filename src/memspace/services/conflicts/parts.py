"""The conflict queue built from the store's roles (read with startup/container.py, which
hands this builder what it names)."""

from __future__ import annotations

from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.conflicts.conflicts import ConflictPorts, ConflictService, proposal_writer
from memspace.services.memories import MemoryService
from memspace.services.security import ContentGuard


def conflict_service(store: GraphStore, access: AccessService, clock: Clock, guard: ContentGuard,
                     flat: MemoryService) -> ConflictService:
    """`flat`: the memory use cases without a model, through which a kept proposal is
    written as it was made."""
    return ConflictService(roles_for(ConflictPorts, store), store.conflicts, store.marks, access,
                           clock, proposal_writer(flat), guard)
