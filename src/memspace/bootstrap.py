"""Builds the object graph from Settings. The only place that picks adapters."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from memspace.config import Settings
from memspace.domain.conflicts import Proposal
from memspace.domain.extraction import FactExtractor
from memspace.domain.files import BlobStore
from memspace.domain.models import Memory
from memspace.domain.notes import NoteJobStore
from memspace.domain.oauth import OAuthStore
from memspace.domain.ports import (
    Clock,
    CodeIndexStore,
    ColdSearch,
    ConflictStore,
    Embedder,
    EvidenceStore,
    GraphStore,
    LifecycleStore,
    SpaceCache,
    SpaceTextStore,
)
from memspace.domain.security import SecurityStore
from memspace.embeddings.prefetch import PrefetchingEmbedder
from memspace.ingest.budget import BudgetedReader, ParseBudget
from memspace.ingest.reader import FileReader, ReaderLimits
from memspace.llm.tokens import TokenCounter
from memspace.metrics import Metrics, metered_services, watched_ports
from memspace.services.access import AccessService, Principal
from memspace.services.add_types import AddRequest
from memspace.services.admin import AdminService
from memspace.services.audit import AuditLog
from memspace.services.briefing import BriefingService
from memspace.services.changes import ChangeFeed
from memspace.services.clock import SystemClock
from memspace.services.code_search import CodeSearchService
from memspace.services.conflict_records import ConflictRecorder
from memspace.services.conflicts import ConflictService, StoreProposal
from memspace.services.context import ProfileService
from memspace.services.conversation import TurnFeatures
from memspace.services.document_files import DocumentFiles
from memspace.services.documents import DocumentService
from memspace.services.evidence import EvidenceService
from memspace.services.extraction_jobs import NoteExtraction
from memspace.services.graph import GraphService
from memspace.services.guard import ContentGuard
from memspace.services.handoffs import HandoffService
from memspace.services.ingest_worker import IngestionWorker
from memspace.services.ingestion import IngestionService
from memspace.services.lifecycle import LifecycleService
from memspace.services.memories import Limits, MemoryService
from memspace.services.mining import GitMining
from memspace.services.oauth import OAuthService
from memspace.services.portability import PortabilityService
from memspace.services.repos import RepoService
from memspace.services.search import SearchService
from memspace.services.security import SecurityService
from memspace.services.seeding import Seeder
from memspace.services.seeding_conflicts import ConflictSeeds
from memspace.services.spaces import SpaceService
from memspace.services.uploads import UploadTickets
from memspace.services.verification import VerificationService, broken_notes


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
    worker: IngestionWorker  # started by the server (api.app lifespan), not by the CLI
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
    security: SecurityService  # policies, audit log, scans (issue 38)
    lifecycle: LifecycleService
    changes: ChangeFeed
    conflicts: ConflictService  # the conflict queue (docs/conflicts.md)
    metrics: Metrics | None = None  # MEMSPACE_METRICS
    notes: NoteExtraction | None = None  # with a model: notes saved without waiting

    def close(self) -> None:
        self.search.close()  # its background loads read the store: they stop first
        self.store.close()


def build_store(settings: Settings) -> GraphStore:
    if settings.store == "neo4j":
        return build_neo4j_store(settings)
    from memspace.stores.sqlite import SqliteStore

    return SqliteStore(settings.sqlite_path)


def build_neo4j_store(settings: Settings) -> GraphStore:
    from memspace.stores.neo4j import Neo4jStore

    if not settings.neo4j_uri:
        raise ValueError("MEMSPACE_NEO4J_URI is not set")
    password = settings.neo4j_password
    return Neo4jStore(
        settings.neo4j_uri,
        user=settings.neo4j_user,
        password=password.get_secret_value() if password is not None else None,
        database=settings.neo4j_database,
        connect_timeout_s=settings.neo4j_connect_timeout_s,
        retry_window_s=settings.neo4j_retry_window_s,
        # one folder per database, so two deployments sharing a data dir never mix vectors
        snapshot_dir=settings.data_dir / "vector-cache" / hashlib.sha256(
            f"{settings.neo4j_uri}|{settings.neo4j_database}".encode()).hexdigest()[:16],
    )


def build_search_paths(settings: Settings,
                       store: GraphStore) -> tuple[SpaceCache | None, ColdSearch | None]:
    """The store's cache under MEMSPACE_CACHE_MB and the store's cold path
    (docs/scaling.md); (None, None) for a store without an in-process cache, or one whose
    reads cannot run beside its writes (an in-memory SQLite database: the background load
    would meet "table is locked"), which loads a space on its first search as before."""
    from memspace.stores.space_cache import CacheRole
    from memspace.stores.sqlite import SqliteStore

    cold: ColdSearch
    if not store.concurrent_reads:
        return None, None
    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.cold import SqliteColdSearch

        cold = SqliteColdSearch(store._db)
    else:
        from memspace.stores.neo4j import Neo4jStore

        if not isinstance(store, Neo4jStore):
            return None, None
        from memspace.stores.neo4j.cold import Neo4jColdSearch

        cold = Neo4jColdSearch(store._db)
    store.vector_cache.budget.budget_bytes = settings.cache_mb * 2**20
    return CacheRole(store.vector_cache, store), cold


def build_oauth_store(store: GraphStore) -> OAuthStore:
    """OAuth records live beside the graph, in the same database (domain/oauth.py)."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.oauth import SqliteOAuthStore

        return SqliteOAuthStore(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.oauth import Neo4jOAuthStore

    if isinstance(store, Neo4jStore):
        return Neo4jOAuthStore(store)
    raise TypeError(f"no OAuth store for {type(store).__name__}")


def build_note_jobs(store: GraphStore) -> NoteJobStore:
    """Jobs of notes saved without waiting live beside the graph, in the same database."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.note_jobs import SqliteNoteJobs

        return SqliteNoteJobs(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.note_jobs import Neo4jNoteJobs

    if isinstance(store, Neo4jStore):
        return Neo4jNoteJobs(store)
    raise TypeError(f"no note job store for {type(store).__name__}")


def build_code_roles(store: GraphStore) -> tuple[CodeIndexStore, EvidenceStore]:
    """The repositories/code index and the evidence roles over the store's connection."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.evidence import SqliteEvidence
        from memspace.stores.sqlite.repos import SqliteRepos

        return SqliteRepos(store), SqliteEvidence(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.evidence import Neo4jEvidence
    from memspace.stores.neo4j.repos import Neo4jRepos

    if isinstance(store, Neo4jStore):
        return Neo4jRepos(store), Neo4jEvidence(store)
    raise TypeError(f"no code index for {type(store).__name__}")


def build_security(store: GraphStore) -> SecurityStore:
    """Space policies and the audit log (issue 38) live beside the graph, in the same database."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.security import SqliteSecurity

        return SqliteSecurity(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.security import Neo4jSecurity

    if isinstance(store, Neo4jStore):
        return Neo4jSecurity(store)
    raise TypeError(f"no security store for {type(store).__name__}")


def build_lifecycle(store: GraphStore) -> LifecycleStore:
    """Status changes set by hand live beside the graph, in the same database."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.lifecycle import SqliteLifecycle

        return SqliteLifecycle(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.lifecycle import Neo4jLifecycle

    if isinstance(store, Neo4jStore):
        return Neo4jLifecycle(store)
    raise TypeError(f"no lifecycle store for {type(store).__name__}")


def build_conflicts(store: GraphStore) -> ConflictStore:
    """The conflict queue's records live beside the graph, in the same database."""
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.conflicts import SqliteConflicts

        return SqliteConflicts(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.conflicts import Neo4jConflicts

    if isinstance(store, Neo4jStore):
        return Neo4jConflicts(store)
    raise TypeError(f"no conflict store for {type(store).__name__}")


def proposal_writer(flat: MemoryService) -> StoreProposal:
    """How a kept proposal is stored: a flat add (no model) that supersedes what it names, or
    stands beside it (`force`)."""

    def store(principal: Principal, space: str, proposal: Proposal,
              supersedes: tuple[str, ...]) -> Memory:
        added = flat.submit(principal, AddRequest(
            proposal.content, space=space, category=proposal.category,
            memory_type=proposal.type.value, supersedes=supersedes, force=True))
        return added.memories[0]

    return store


def build_space_settings(store: GraphStore) -> SpaceTextStore:
    from memspace.stores.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from memspace.stores.sqlite.space_settings import SqliteSpaceSettings

        return SqliteSpaceSettings(store)
    from memspace.stores.neo4j import Neo4jStore
    from memspace.stores.neo4j.space_settings import Neo4jSpaceSettings

    if isinstance(store, Neo4jStore):
        return Neo4jSpaceSettings(store)
    raise TypeError(f"no space settings store for {type(store).__name__}")


def build_embedder(settings: Settings, store: GraphStore | None = None) -> Embedder:
    """The configured model; with a store, the one its vectors were made with
    (services/embedding_model.py), recorded on its first start once the model is built."""
    from memspace.services import embedding_model

    if store is not None:
        name = embedding_model.model_for(settings.embedding_model, store)
    elif settings.embedding_model == embedding_model.LOCAL:
        name = embedding_model.E5_SMALL
    else:
        name = settings.embedding_model
    embedder = _embedder_named(name, settings)
    if store is not None:
        embedding_model.choose_model(settings.embedding_model, store)
    return embedder


def _embedder_named(name: str, settings: Settings) -> Embedder:
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder
    from memspace.embeddings.sbert import PREFIX, SentenceTransformersEmbedder

    if name in LOCAL_MODELS:  # a model not installed says, when used, how to install it
        return LocalEmbedder(LOCAL_MODELS[name], models_dir=settings.models_dir)
    if name.startswith(PREFIX):
        return SentenceTransformersEmbedder(name)
    from memspace.embeddings.remote import LitellmEmbedder

    return LitellmEmbedder(
        name,
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
    )


def describe(embedder: Embedder) -> str:
    """The model, its runtime and the file it reads: what `doctor` and `serve` print."""
    from memspace.embeddings.local import LocalEmbedder
    from memspace.embeddings.remote import LitellmEmbedder
    from memspace.embeddings.sbert import SentenceTransformersEmbedder

    if isinstance(embedder, LocalEmbedder):
        from importlib.metadata import version

        return (f"{embedder.model.name} on onnxruntime {version('onnxruntime')} "
                f"({embedder.location})")
    if isinstance(embedder, SentenceTransformersEmbedder):
        return f"{embedder.name} on sentence-transformers"
    if isinstance(embedder, LitellmEmbedder):
        return f"{embedder.name} through litellm"
    return type(embedder).__name__


def missing_model(embedder: Embedder) -> str | None:
    """What to run when the embedder's local model is not installed, else None: a server
    refuses to start on it rather than fail every request."""
    from memspace.embeddings.local import LocalEmbedder

    return embedder.missing() if isinstance(embedder, LocalEmbedder) else None


def build_blobs(settings: Settings) -> BlobStore:
    from memspace.stores.files import FilesystemBlobStore

    return FilesystemBlobStore(settings.documents_dir)


def build_reader(settings: Settings) -> FileReader:
    """Parsers with the configured limits; a chunk is one add, so it fits one add's limit."""
    return FileReader(ReaderLimits(
        max_pdf_pages=settings.max_pdf_pages,
        max_csv_rows=settings.max_csv_rows,
        max_document_chars=settings.max_document_chars,
        chunk_chars=min(settings.chunk_chars, settings.max_memory_chars),
        max_chunk_chars=settings.max_memory_chars,
    ))


def build_extractor(settings: Settings) -> FactExtractor | None:
    """The LLM behind fact extraction, or None (flat mode) when no model is configured."""
    if not settings.llm_model:
        return None
    from memspace.llm.extractor import LitellmExtractor

    return LitellmExtractor(
        settings.llm_model,
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        timeout_s=settings.llm_timeout_s,
    )


def upload_secret(settings: Settings) -> bytes | None:
    """The configured secret for upload tickets; None lets the process pick a random one."""
    return settings.upload_secret.get_secret_value().encode() if settings.upload_secret else None


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
    extractor = extractor or build_extractor(settings)
    # Only with a model: without one an add stores its note as it is and nothing is deferred.
    note_jobs = build_note_jobs(store) if extractor is not None else None
    code_index, evidence_store = build_code_roles(store)
    security_store = build_security(store)
    marks = build_lifecycle(store)
    conflict_store = build_conflicts(store)
    texts = build_space_settings(store)
    cache, cold = build_search_paths(settings, store)
    metrics = Metrics() if settings.metrics else None
    if metrics is not None:
        store, extractor = watched_ports(metrics, store, extractor)
    memory_service, ingestion_service, note_service = metered_services(metrics)
    clock = clock or SystemClock()
    recorder = ConflictRecorder(conflict_store, clock)
    audit = AuditLog(security_store, clock)
    guard = ContentGuard(security_store, audit)  # the security step of every write path
    access = AccessService(store, clock)
    profiles = ProfileService(store, access)
    features = TurnFeatures.parse(settings.conversation_features)
    limits = Limits(settings.max_memory_chars, settings.max_page_size, features)
    # Adds embed through this, so a document's chunks can be embedded ahead in batches.
    batched = PrefetchingEmbedder(embedder)
    notes = (note_service(store, note_jobs, batched, extractor, clock, recorder)
             if note_jobs is not None and extractor is not None else None)
    evidence = EvidenceService(code_index, evidence_store, access, clock)
    verification = VerificationService(store, code_index, evidence_store, access, clock)
    cold_reads = (cache, cold) if cache is not None and cold is not None else None
    memories = memory_service(store, batched, access, clock, limits, extractor, notes=notes,
                              evidence=evidence, guard=guard, cold=cold_reads, conflicts=recorder)
    files = DocumentFiles(blobs or build_blobs(settings))
    reader = BudgetedReader(build_reader(settings), ParseBudget(
        settings.max_parse_seconds, settings.max_parse_memory_mb * 2**20))
    ingestion = ingestion_service(store, access, memories, reader, files, clock,
                                 settings.max_upload_bytes, batched.prefetch)
    admin = AdminService(store, clock, audit, texts)
    # The demo loads without a model, so it looks the same on every machine.
    flat = MemoryService(store, batched, access, clock, limits, evidence=evidence, guard=guard,
                         cold=cold_reads, conflicts=recorder)
    lifecycle = LifecycleService(store, marks, access, clock)
    seeder = Seeder(admin, access, flat, IngestionService(
        store, access, flat, reader, files, clock, settings.max_upload_bytes, batched.prefetch),
        store, clock, ConflictSeeds(flat, lifecycle, recorder, access, store, batched, clock))
    repos = RepoService(code_index, store, access, clock, verification)
    conflicts = ConflictService(store, conflict_store, marks, access, clock,
                                proposal_writer(flat))
    return Container(
        settings=settings,
        metrics=metrics,
        store=store,
        embedder=embedder,
        access=access,
        admin=admin,
        memories=memories,
        search=SearchService(store, embedder, access, profiles, settings.max_query_chars,
                             guard.quarantines, features, cache, cold),
        documents=DocumentService(store, access, files, settings.max_page_size),
        ingestion=ingestion,
        worker=IngestionWorker(ingestion, notes),
        notes=notes,
        seeder=seeder,
        profiles=profiles,
        spaces=SpaceService(access, store, conflicts.count),
        graphs=GraphService(store, access),
        briefings=BriefingService(store, embedder, access, clock, TokenCounter().count,
                                  quarantines=guard.quarantines, marks=marks,
                                  broken=broken_notes(evidence_store),
                                  open_conflicts=conflicts.count),
        handoffs=HandoffService(store, access, clock, evidence, guard),
        uploads=UploadTickets(store, access, clock, upload_secret(settings)),
        portability=PortabilityService(store, embedder, access, files, admin, guard, audit,
                                       conflict_store),
        oauth=OAuthService(build_oauth_store(store), access, admin, clock, audit),
        evidence=evidence,
        repos=repos,
        verification=verification,
        code=CodeSearchService(code_index, access),
        mining=GitMining(repos, code_index, memories),
        security=SecurityService(admin, security_store, guard, audit, store),
        lifecycle=lifecycle,
        changes=ChangeFeed(store, marks, access, TokenCounter().count),
        conflicts=conflicts,
    )
