"""Builds the object graph from Settings, the one composition root: the adapters from
Settings (wiring.py), the roles beside the store from its backend's table (stores/roles.py),
then each service with the roles it asks for."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from memspace.config import Settings
from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactExtractor
from memspace.domain.files import BlobStore
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.notes import NoteJobStore
from memspace.domain.oauth import OAuthStore
from memspace.domain.ports import Clock, ColdPath, SpaceCache
from memspace.domain.role_ports import (
    CodeIndexStore,
    ConflictStore,
    EvidenceStore,
    LifecycleStore,
    SpaceTextStore,
)
from memspace.domain.security import SecurityStore
from memspace.embeddings.prefetch import PrefetchingEmbedder
from memspace.llm.tokens import TokenCounter
from memspace.metrics import Metrics, meter_services, watched, watched_ports
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
from memspace.stores.roles import TABLES, kit_of, roles_of
from memspace.wiring import (
    build_blobs,
    build_embedder,
    build_extractor,
    build_limits,
    build_reader,
    build_store,
    upload_secret,
)


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
    worker: IngestionWorker  # started by the server (server.py lifespan), not by the CLI
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
    metrics: Metrics | None = None  # MEMSPACE_METRICS
    notes: NoteExtraction | None = None  # with a model: notes saved without waiting

    def close(self) -> None:
        self.search.close()  # its background loads read the store: they stop first
        self.store.close()


def build_search_paths(settings: Settings,
                       store: GraphStore) -> tuple[SpaceCache | None, ColdPath | None]:
    """The store's cache under MEMSPACE_CACHE_MB and the store's cold path
    (docs/scaling.md); (None, None) for a store without an in-process cache, or one whose
    reads cannot run beside its writes (an in-memory SQLite database: the background load
    would meet "table is locked"), which loads a space on its first search as before."""
    if not store.search.concurrent_reads or store.backend not in TABLES:
        return None, None
    roles = roles_of(store)
    return roles.cache(store, settings.cache_mb * 2**20), roles.cold(kit_of(store))


# The roles built beside the store, named as in its backend's role table (stores/role_table.py).
BESIDE = ("note_jobs", "code_index", "evidence", "security", "marks", "texts", "oauth",
          "conflicts")


@dataclass
class Ports:
    """The graph store and the roles built beside it (stores/roles.py), as services see them."""

    store: GraphStore
    extractor: FactExtractor | None
    note_jobs: NoteJobStore | None  # only with a model: without one nothing is deferred
    code_index: CodeIndexStore
    evidence: EvidenceStore
    security: SecurityStore
    marks: LifecycleStore
    texts: SpaceTextStore
    oauth: OAuthStore
    conflicts: ConflictStore
    cache: SpaceCache | None
    cold: ColdPath | None
    metrics: Metrics | None

    @property
    def note_states(self) -> NoteJobs | None:
        """How notes saved without waiting stood, for reads of the past (None without a model)."""
        return self.note_jobs.note_jobs if self.note_jobs is not None else None

    @property
    def cold_reads(self) -> ColdNeighbours | None:
        """The cache with the cold path, where a write reads a space this process does not hold."""
        return (self.cache, self.cold) if self.cache is not None and self.cold is not None else None


def build_ports(settings: Settings, store: GraphStore, extractor: FactExtractor | None) -> Ports:
    """Every role from the table of the store's backend; with MEMSPACE_METRICS each role of the
    store and beside it, and the extractor, are watched (metrics.py)."""
    roles, kit = roles_of(store), kit_of(store)
    cache, cold = build_search_paths(settings, store)
    metrics = Metrics() if settings.metrics else None
    ports = Ports(
        store=store, extractor=extractor,
        note_jobs=roles.note_jobs(kit) if extractor is not None else None,
        code_index=roles.code_index(kit), evidence=roles.evidence(kit),
        security=roles.security(kit), marks=roles.marks(kit),
        texts=roles.texts(kit), oauth=roles.oauth(kit),
        conflicts=roles.conflicts(kit),
        cache=cache, cold=cold, metrics=metrics)
    if metrics is not None:
        ports.store, ports.extractor = watched_ports(metrics, store, extractor)
        for name in BESIDE:
            if getattr(ports, name) is not None:
                setattr(ports, name, watched(getattr(ports, name), metrics))
    return ports


def build(
    settings: Settings | None = None,
    *,
    store: GraphStore | None = None,
    embedder: Embedder | None = None,
    clock: Clock | None = None,
    extractor: FactExtractor | None = None,
    blobs: BlobStore | None = None,
) -> Container:
    """Wire everything; tests pass their own store, embedder, clock or blob store."""
    settings = settings or Settings()
    owned = store is None
    store = store or build_store(settings)
    try:
        embedder = embedder or build_embedder(settings, store)
    except BaseException:  # e.g. the store's vectors are another model's: nothing stays open
        if owned:
            store.close()
        raise
    ports = build_ports(settings, store, extractor or build_extractor(settings))
    return _services(settings, ports, embedder, clock or SystemClock(),
                     DocumentFiles(blobs or build_blobs(settings)))


def _services(settings: Settings, p: Ports, embedder: Embedder, clock: Clock,
              files: DocumentFiles) -> Container:
    """The services over the ports, each handed the store's roles its `*Ports` names (or the
    one role it takes) and the roles built beside the store."""
    store = p.store
    only = partial(roles_for, store=store)  # a view of the store holding those roles alone
    recorder = ConflictRecorder(p.conflicts, clock)
    audit = AuditLog(p.security, clock)
    guard = ContentGuard(p.security, audit)  # the security step of every write path
    access = AccessService(store.directory, clock)
    profiles = ProfileService(only(ProfilePorts), access)
    limits = build_limits(settings)
    # Adds embed through this, so a document's chunks can be embedded ahead in batches.
    batched = PrefetchingEmbedder(embedder)
    notes = (NoteExtraction(only(NotePorts), p.note_jobs, batched, p.extractor, clock, recorder)
             if p.note_jobs is not None and p.extractor is not None else None)
    evidence = EvidenceService(p.code_index, p.evidence, access, clock)
    verification = VerificationService(store.reads, p.code_index, p.evidence, access, clock)
    memories = MemoryService(only(MemoryPorts), batched, access, clock, limits, p.extractor,
                             notes=notes, evidence=evidence, guard=guard, cold=p.cold_reads,
                             conflicts=recorder, answer_form=add_json, marks=p.marks)
    reader = build_reader(settings)
    ingestion = IngestionService(only(IngestionPorts), access, memories, reader, files, clock,
                                 settings.max_upload_bytes, batched.prefetch, guard)
    if p.metrics is not None:
        meter_services(p.metrics, memories, ingestion, notes, p.extractor is not None)
    admin = AdminService(store.directory, clock, audit, p.texts)
    # The demo loads without a model, so it looks the same on every machine.
    flat = MemoryService(only(MemoryPorts), batched, access, clock, limits, evidence=evidence,
                         guard=guard, cold=p.cold_reads, conflicts=recorder, answer_form=add_json)
    lifecycle = LifecycleService(only(LifecyclePorts), p.marks, access, clock, guard)
    seeder = Seeder(admin, access, flat, IngestionService(
        only(IngestionPorts), access, flat, reader, files, clock, settings.max_upload_bytes,
        batched.prefetch, guard), only(SeedPorts), clock,
        ConflictSeeds(flat, lifecycle, recorder, access, only(ConflictSeedPorts), batched, clock))
    repos = RepoService(p.code_index, store.directory, access, clock, verification)
    conflicts = ConflictService(only(ConflictPorts), p.conflicts, p.marks, access, clock,
                                proposal_writer(flat), guard)
    briefings = BriefingService(only(BriefingPorts), embedder, access, clock, TokenCounter().count,
                                quarantines=guard.quarantines, open_conflicts=conflicts.count, marks=p.marks,
                                broken=broken_notes(p.evidence), cold=p.cold_reads, notes=p.note_states)
    search = SearchService(only(SearchPorts), embedder, access, profiles, settings.max_query_chars,
                           guard.quarantines, limits.turns, p.cache, p.cold, clock, p.marks, p.note_states)
    return Container(
        settings=settings, metrics=p.metrics, store=store, embedder=embedder, access=access,
        admin=admin, memories=memories, search=search, briefings=briefings, seeder=seeder, profiles=profiles,
        documents=DocumentService(only(DocumentPorts), access, files, settings.max_page_size),
        ingestion=ingestion, worker=IngestionWorker(ingestion, notes), notes=notes,
        graphs=GraphService(only(GraphViewPorts), access, clock, p.marks, p.note_states),
        spaces=SpaceService(access, only(SpacePorts), conflicts.count),
        handoffs=HandoffService(store.handoffs, access, clock, evidence, guard),
        uploads=UploadTickets(store.directory, access, clock, upload_secret(settings)),
        portability=PortabilityService(only(PortabilityPorts), embedder, access, files, admin,
                                       guard, audit, p.conflicts),
        oauth=OAuthService(p.oauth, access, admin, clock, audit), evidence=evidence,
        repos=repos, verification=verification, code=CodeSearchService(p.code_index, access),
        mining=GitMining(repos, p.code_index, memories), lifecycle=lifecycle, security=SecurityService(
            admin, p.security, guard, audit, store.reads, OtherRecords.of(store, files)),
        changes=ChangeFeed(store.reads, p.marks, access, TokenCounter().count), conflicts=conflicts,
    )
