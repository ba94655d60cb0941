"""Builds the object graph from Settings, the one composition root: the adapters from
Settings (adapters.py), the store with its roles, then each service with the roles it asks for."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.files import BlobStore
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.notes import NoteJobStore
from memspace.domain.ports import Clock
from memspace.domain.search_paths import ColdPath, SpaceCache
from memspace.embeddings.prefetch import PrefetchingEmbedder
from memspace.llm.tokens import TokenCounter
from memspace.present.json import add_json
from memspace.services.access import (
    AccessService,
    AdminService,
    OAuthService,
    SpacePorts,
    SpaceService,
    UploadTickets,
)
from memspace.services.briefing import (
    BriefingPorts,
    BriefingService,
    GraphService,
    GraphViewPorts,
    HandoffService,
)
from memspace.services.conflicts import ConflictPorts, ConflictService, proposal_writer
from memspace.services.consolidation import (
    ConsolidationPorts,
    ConsolidationService,
    ModelTurns,
    PassComparer,
    PassModel,
    PassParts,
    RequestModel,
    Schedule,
)
from memspace.services.demo import ConflictSeedPorts, ConflictSeeds, Seeder, SeedPorts
from memspace.services.documents import DocumentFiles, DocumentPorts, DocumentService
from memspace.services.evidence import (
    CodeSearchService,
    EvidenceService,
    RepoService,
    VerificationService,
    broken_notes,
)
from memspace.services.ingestion import GitMining, IngestionPorts, IngestionService, IngestionWorker
from memspace.services.lifecycle import ChangeFeed, LifecyclePorts, LifecycleService
from memspace.services.memories import (
    ColdNeighbours,
    ConflictRecorder,
    MemoryPorts,
    MemoryService,
    NoteExtraction,
    NotePorts,
)
from memspace.services.portability import PortabilityPorts, PortabilityService
from memspace.services.search import ProfilePorts, ProfileService, SearchPorts, SearchService
from memspace.services.security import ContentGuard, OtherRecords, SecurityService
from memspace.services.shared import AuditLog, NoteJobs, SystemClock
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
from memspace.startup.metrics import Metrics, meter_services, watched_ports
from memspace.startup.settings import Settings


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


def build_search_paths(settings: Settings,
                       store: GraphStore) -> tuple[SpaceCache | None, ColdPath | None]:
    """The store's cache under MEMSPACE_CACHE_MB and the store's cold path
    (docs/scaling.md); (None, None) for a store whose reads cannot run beside its writes (an
    in-memory SQLite database: the background load would meet "table is locked"), which
    loads a space on its first search as before."""
    if not store.search.concurrent_reads:
        return None, None
    store.cache.limit(settings.cache_mb * 2**20)
    return store.cache, store.cold


@dataclass
class Ports:
    """The graph store and what the services are handed beside it, as services see them."""

    store: GraphStore
    extractor: FactExtractor | None
    comparer: FactComparer | None  # the model's second look for consolidation passes
    cache: SpaceCache | None
    cold: ColdPath | None
    metrics: Metrics | None
    # Requests' model calls go first; a consolidation pass's calls wait for them (schedule.py).
    turns: ModelTurns = field(default_factory=ModelTurns)

    @property
    def request_model(self) -> FactExtractor | None:
        """The model as requests call it (each call counted while it runs)."""
        return RequestModel(self.extractor, self.turns) if self.extractor is not None else None

    @property
    def note_jobs(self) -> NoteJobStore | None:
        """Notes saved without waiting: only with a model (without one nothing is deferred)."""
        return self.store.note_jobs if self.extractor is not None else None

    @property
    def note_states(self) -> NoteJobs | None:
        """How notes saved without waiting stood, for reads of the past (None without a model)."""
        return self.note_jobs.note_jobs if self.note_jobs is not None else None

    @property
    def cold_reads(self) -> ColdNeighbours | None:
        """The cache with the cold path, where a write reads a space this process does not hold."""
        return (self.cache, self.cold) if self.cache is not None and self.cold is not None else None


def build_ports(settings: Settings, store: GraphStore, extractor: FactExtractor | None,
                comparer: FactComparer | None = None) -> Ports:
    """The store and its search paths; with MEMSPACE_METRICS each role of the store, and the
    extractor, are watched (metrics.py)."""
    cache, cold = build_search_paths(settings, store)
    metrics = Metrics() if settings.metrics else None
    ports = Ports(store=store, extractor=extractor, comparer=comparer, cache=cache, cold=cold,
                  metrics=metrics)
    if metrics is not None:
        ports.store, ports.extractor = watched_ports(metrics, store, extractor)
    return ports


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


def _consolidation(settings: Settings, p: Ports, embedder: Embedder, clock: Clock,
                   recorder: ConflictRecorder) -> ConsolidationService:
    """The consolidation pass (docs/consolidation.md); with a model, its calls wait for the
    requests' own (p.turns), and it extracts memories saved flat by the notes' rules."""
    only = partial(roles_for, store=p.store)
    model = PassModel(p.extractor, p.turns) if p.extractor is not None else None
    notes = (NoteExtraction(only(NotePorts), p.note_jobs, embedder, model, clock, recorder)
             if p.note_jobs is not None and model is not None else None)
    parts = PassParts(only(ConsolidationPorts), embedder, clock, model,
                      notes.extract_saved if notes is not None else None,
                      PassComparer(p.comparer, p.turns) if p.comparer is not None else None,
                      settings.consolidate_max_calls)
    return ConsolidationService(parts, p.metrics.consolidated if p.metrics else None)


def _services(settings: Settings, p: Ports, embedder: Embedder, clock: Clock,
              files: DocumentFiles) -> Container:
    """The services over the ports, each given the roles its `*Ports` names, or its one role."""
    store, states = p.store, p.note_states  # states: how notes saved without waiting stood
    only = partial(roles_for, store=store)  # a view of the store holding those roles alone
    recorder, audit = ConflictRecorder(store.conflicts, clock), AuditLog(store.security, clock)
    guard = ContentGuard(store.security, audit)  # the security step of every write path
    access = AccessService(store.directory, clock)
    profiles = ProfileService(only(ProfilePorts), access)
    limits = build_limits(settings)
    # Adds embed through this, so a document's chunks can be embedded ahead in batches.
    batched = PrefetchingEmbedder(embedder)
    notes = (NoteExtraction(only(NotePorts), p.note_jobs, batched, p.request_model, clock,
                            recorder) if p.note_jobs is not None and p.request_model else None)
    evidence = EvidenceService(store.code_index, store.evidence, access, clock)
    verification = VerificationService(store.reads, store.code_index, store.evidence, access, clock)
    memories = MemoryService(only(MemoryPorts), batched, access, clock, limits, p.request_model,
                             notes=notes, evidence=evidence, guard=guard, cold=p.cold_reads,
                             conflicts=recorder, answer_form=add_json, marks=store.marks)
    reader = build_reader(settings)
    ingestion = IngestionService(only(IngestionPorts), access, memories, reader, files, clock,
                                 settings.max_upload_bytes, batched.prefetch, guard)
    if p.metrics is not None:
        meter_services(p.metrics, memories, ingestion, notes, p.extractor is not None)
    admin = AdminService(store.directory, clock, audit, store.texts)
    # The demo loads without a model, so it looks the same on every machine.
    flat = MemoryService(only(MemoryPorts), batched, access, clock, limits, evidence=evidence,
                         guard=guard, cold=p.cold_reads, conflicts=recorder, answer_form=add_json)
    lifecycle = LifecycleService(only(LifecyclePorts), store.marks, access, clock, guard)
    seeder = Seeder(admin, access, flat, IngestionService(
        only(IngestionPorts), access, flat, reader, files, clock, settings.max_upload_bytes,
        batched.prefetch, guard), only(SeedPorts), clock,
        ConflictSeeds(flat, lifecycle, recorder, access, only(ConflictSeedPorts), batched, clock))
    repos = RepoService(store.code_index, store.directory, access, clock, verification)
    conflicts = ConflictService(only(ConflictPorts), store.conflicts, store.marks, access, clock,
                                proposal_writer(flat), guard)
    briefings = BriefingService(only(BriefingPorts), embedder, access, clock, TokenCounter().count,
                                quarantines=guard.quarantines, marks=store.marks, cold=p.cold_reads,
                                broken=broken_notes(store.evidence), open_conflicts=conflicts.count,
                                notes=states)
    search = SearchService(only(SearchPorts), embedder, access, profiles, settings.max_query_chars,
                           guard.quarantines, limits.turns, p.cache, p.cold, clock, store.marks, states)
    return Container(
        settings=settings, metrics=p.metrics, store=store, embedder=embedder, access=access,
        admin=admin, memories=memories, search=search, briefings=briefings, seeder=seeder, profiles=profiles,
        documents=DocumentService(only(DocumentPorts), access, files, settings.max_page_size),
        ingestion=ingestion, worker=IngestionWorker(ingestion, notes), notes=notes,
        graphs=GraphService(only(GraphViewPorts), access, clock, store.marks, states),
        spaces=SpaceService(access, only(SpacePorts), conflicts.count),
        handoffs=HandoffService(store.handoffs, access, clock, evidence, guard),
        uploads=UploadTickets(store.directory, access, clock, upload_secret(settings)),
        portability=PortabilityService(only(PortabilityPorts), embedder, access, files, admin,
                                       guard, audit, store.conflicts),
        oauth=OAuthService(store.oauth, access, admin, clock, audit), evidence=evidence,
        repos=repos, verification=verification, code=CodeSearchService(store.code_index, access),
        mining=GitMining(repos, store.code_index, memories), lifecycle=lifecycle, security=SecurityService(
            admin, store.security, guard, audit, store.reads, OtherRecords.of(store, files)),
        changes=ChangeFeed(store.reads, store.marks, access, TokenCounter().count), conflicts=conflicts,
        consolidation=_consolidation(settings, p, batched, clock, recorder),
    )
