"""The one composition root: the adapters from Settings (adapters.py), the store with what is
handed beside it (ports.py), then each use-case package's services from its own builder (its
`parts` module: what a service depends on is read there). This module only hands each builder
what it names, in the order the packages need each other, and holds the result (`Container`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.files import BlobStore
from memspace.domain.graph_port import GraphStore
from memspace.domain.ports import Clock
from memspace.embeddings.prefetch import PrefetchingEmbedder
from memspace.llm.tokens import TokenCounter
from memspace.present.json import add_json
from memspace.services.access import (
    AccessService,
    AdminService,
    OAuthService,
    SpaceService,
    UploadTickets,
    access_parts,
    space_service,
)
from memspace.services.briefing import BriefingService, GraphService, HandoffService, briefing_parts
from memspace.services.conflicts import ConflictService, conflict_service
from memspace.services.consolidation import ConsolidationService, Schedule, consolidation_service
from memspace.services.demo import Seeder, seeder
from memspace.services.documents import DocumentFiles, DocumentService, document_service
from memspace.services.evidence import (
    CodeSearchService,
    EvidenceService,
    RepoService,
    VerificationService,
    evidence_parts,
)
from memspace.services.ingestion import GitMining, IngestionService, IngestionWorker, ingestion_parts
from memspace.services.lifecycle import ChangeFeed, LifecycleService, lifecycle_parts
from memspace.services.memories import MemoryService, NoteExtraction, memories_parts
from memspace.services.portability import PortabilityService, portability_service
from memspace.services.search import ProfileService, SearchService, search_parts
from memspace.services.security import SecurityService, security_parts
from memspace.services.shared import AuditLog, SystemClock
from memspace.startup.adapters import (
    build_blobs,
    build_comparer,
    build_embedder,
    build_extractor,
    build_limits,
    build_reader,
    build_store,
    upload_secret,
)
from memspace.startup.metrics import Metrics, meter_services
from memspace.startup.ports import Ports, build_ports, build_search_paths
from memspace.startup.settings import Settings

# Ports, build_ports and build_search_paths moved to ports.py; callers still import them here.
__all__ = ["Container", "Ports", "build", "build_ports", "build_search_paths"]


@dataclass
class Container:
    settings: Settings
    store: GraphStore
    embedder: Embedder
    access: AccessService
    admin: AdminService
    memories: MemoryService
    search: SearchService
    documents: DocumentService
    ingestion: IngestionService
    worker: IngestionWorker  # started by the server (app.py lifespan), not by the CLI
    seeder: Seeder
    profiles: ProfileService
    spaces: SpaceService
    graphs: GraphService
    briefings: BriefingService
    handoffs: HandoffService
    uploads: UploadTickets
    portability: PortabilityService
    oauth: OAuthService
    evidence: EvidenceService  # docs/evidence.md: policies, repositories, verification, code
    repos: RepoService
    verification: VerificationService
    code: CodeSearchService
    mining: GitMining
    security: SecurityService  # policies, audit log, scans (docs/security.md)
    lifecycle: LifecycleService
    changes: ChangeFeed
    conflicts: ConflictService  # the conflict queue (docs/conflicts.md)
    consolidation: ConsolidationService  # docs/consolidation.md
    metrics: Metrics | None = None  # MEMSPACE_METRICS
    notes: NoteExtraction | None = None  # with a model: notes saved without waiting
    # The consolidation passes' rounds, started by the server (app.py lifespan).
    schedule: Schedule = field(init=False)

    def __post_init__(self) -> None:
        self.schedule = Schedule(self.consolidation, self.settings.consolidate_every_s)

    def close(self) -> None:
        self.search.close()  # its background loads read the store: they stop first
        self.store.close()


def build(
    settings: Settings | None = None,
    *,
    store: GraphStore | None = None,
    embedder: Embedder | None = None,
    clock: Clock | None = None,
    extractor: FactExtractor | None = None,
    blobs: BlobStore | None = None,
    comparer: FactComparer | None = None,
) -> Container:
    """Wire everything; tests pass their own store, embedder, clock, model or blob store (a
    model passed in is not asked the consolidation pass's second look unless `comparer`)."""
    settings = settings or Settings()
    owned = store is None
    store = store or build_store(settings)
    try:
        embedder = embedder or build_embedder(settings, store)
    except BaseException:  # e.g. the store's vectors are another model's: nothing stays open
        if owned:
            store.close()
        raise
    if extractor is None:
        extractor, comparer = build_extractor(settings), comparer or build_comparer(settings)
    ports = build_ports(settings, store, extractor, comparer)
    return _services(settings, ports, embedder, clock or SystemClock(),
                     DocumentFiles(blobs or build_blobs(settings)))


def _services(settings: Settings, p: Ports, embedder: Embedder, clock: Clock,
              files: DocumentFiles) -> Container:
    """Each package's builder with what it names; a package comes after those it takes from."""
    store, states, cold = p.store, p.note_states, p.cold_reads  # states: notes saved unwaited
    audit = AuditLog(store.security, clock)  # the operator's log, which several packages write
    count_tokens, limits = TokenCounter().count, build_limits(settings)
    # Adds embed through this, so a document's chunks can be embedded ahead in batches.
    batched = PrefetchingEmbedder(embedder)
    accounts = access_parts(store, clock, audit, upload_secret(settings))
    access = accounts.access  # who is calling: every package below asks it
    secure = security_parts(store, audit, accounts.admin, files)
    guard = secure.guard
    cited = evidence_parts(store, access, clock)
    # An add's answer is kept in the idempotency ledger in its wire shape, handed in from here.
    memories = memories_parts(store, batched, access, clock, limits, model=p.request_model,
                              note_jobs=p.note_jobs, evidence=cited.evidence, guard=guard,
                              cold=cold, answer_form=add_json)
    ingestion = ingestion_parts(store, access, memories, build_reader(settings), files, clock,
                                max_upload_bytes=settings.max_upload_bytes,
                                prefetch=batched.prefetch, guard=guard, repos=cited.repos)
    if p.metrics is not None:  # counted from outside: the services' code stays as it is
        meter_services(p.metrics, memories.memories, ingestion.ingestion, memories.notes,
                       p.extractor is not None)
    lifecycle = lifecycle_parts(store, access, clock, guard, count_tokens)
    conflicts = conflict_service(store, access, clock, guard, memories.flat)
    search = search_parts(store, embedder, access, clock, max_query_chars=settings.max_query_chars,
                          quarantines=guard.quarantines, features=limits.turns, cache=p.cache,
                          cold=p.cold, note_states=states)
    briefing = briefing_parts(store, embedder, access, clock, count_tokens=count_tokens,
                              guard=guard, evidence=cited.evidence,
                              open_conflicts=conflicts.count, cold=cold, note_states=states)
    return Container(
        settings=settings, metrics=p.metrics, store=store, embedder=embedder, access=access,
        admin=accounts.admin, oauth=accounts.oauth, uploads=accounts.uploads,
        spaces=space_service(store, access, conflicts.count), security=secure.security,
        evidence=cited.evidence, verification=cited.verification, repos=cited.repos,
        code=cited.code, memories=memories.memories, notes=memories.notes,
        ingestion=ingestion.ingestion, worker=ingestion.worker, mining=ingestion.mining,
        lifecycle=lifecycle.lifecycle, changes=lifecycle.changes, conflicts=conflicts,
        search=search.search, profiles=search.profiles, briefings=briefing.briefings,
        graphs=briefing.graphs, handoffs=briefing.handoffs,
        documents=document_service(store, access, files, settings.max_page_size),
        portability=portability_service(store, embedder, access, accounts.admin, files, guard,
                                        audit),
        seeder=seeder(store, batched, access, accounts.admin, clock, memories=memories.flat,
                      ingestion=ingestion.flat, lifecycle=lifecycle.lifecycle,
                      recorder=memories.recorder),
        consolidation=consolidation_service(
            store, batched, clock, extractor=p.extractor, comparer=p.comparer, turns=p.turns,
            note_jobs=p.note_jobs, recorder=memories.recorder,
            max_calls=settings.consolidate_max_calls,
            spent=p.metrics.consolidated if p.metrics else None),
    )
