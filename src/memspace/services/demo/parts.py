"""The demo's loader built from the store's roles (read with startup/container.py, which
hands this builder what it names)."""

from __future__ import annotations

from memspace.domain.embedder import Embedder
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access import AccessService, AdminService
from memspace.services.demo.demo_conflicts import ConflictSeedPorts, ConflictSeeds
from memspace.services.demo.seeding import Seeder, SeedPorts
from memspace.services.ingestion import IngestionService
from memspace.services.lifecycle import LifecycleService
from memspace.services.memories import ConflictRecorder, MemoryService


def seeder(store: GraphStore, embedder: Embedder, access: AccessService, admin: AdminService,
           clock: Clock, *, memories: MemoryService, ingestion: IngestionService,
           lifecycle: LifecycleService, recorder: ConflictRecorder) -> Seeder:
    """`memories` and `ingestion` are the ones without a model (the demo looks the same on
    every machine); `lifecycle` and `recorder` make the seeded conflicts of each kind."""
    conflicts = ConflictSeeds(memories, lifecycle, recorder, access,
                              roles_for(ConflictSeedPorts, store), embedder, clock)
    return Seeder(admin, access, memories, ingestion, roles_for(SeedPorts, store), clock, conflicts)
