"""The adapters built from Settings, each on its own: the graph store, the embedding model, the
fact extractor, the blob store and the file reader (the CLI and `memspace doctor` build some of
them alone; `container.build` wires them all)."""

from __future__ import annotations

import hashlib

from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.files import BlobStore
from memspace.domain.graph_port import GraphStore
from memspace.ingest.budget import BudgetedReader, ParseBudget
from memspace.ingest.reader import FileReader, ReaderLimits
from memspace.services.memories import Limits, TurnFeatures
from memspace.startup.settings import Settings


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


def build_reader(settings: Settings) -> BudgetedReader:
    """Parsers with the configured limits (a chunk is one add, so it fits one add's limit),
    each read run in a child process under MEMSPACE_MAX_PARSE_SECONDS / _MEMORY_MB."""
    return BudgetedReader(FileReader(ReaderLimits(
        max_pdf_pages=settings.max_pdf_pages,
        max_csv_rows=settings.max_csv_rows,
        max_document_chars=settings.max_document_chars,
        chunk_chars=min(settings.chunk_chars, settings.max_memory_chars),
        max_chunk_chars=settings.max_memory_chars,
    )), ParseBudget(settings.max_parse_seconds, settings.max_parse_memory_mb * 2**20))


def build_limits(settings: Settings) -> Limits:
    """The memory use cases' limits, with the conversation features that are on."""
    return Limits(settings.max_memory_chars, settings.max_page_size,
                  TurnFeatures.parse(settings.conversation_features))


def build_extractor(settings: Settings) -> FactExtractor | None:
    """The LLM behind fact extraction, or None (flat mode) when no model is configured."""
    if not settings.llm_model:
        return None
    from memspace.llm.extractor import LitellmExtractor
    from memspace.llm.two_pass import TwoPassExtractor

    kind = TwoPassExtractor if settings.extraction_passes == 2 else LitellmExtractor
    return kind(
        settings.llm_model,
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        timeout_s=settings.llm_timeout_s,
    )


def build_comparer(settings: Settings) -> FactComparer | None:
    """The model's second look before a consolidation pass retires a memory (None: no model)."""
    if not settings.llm_model:
        return None
    from memspace.llm.compare import LitellmComparer

    return LitellmComparer(
        settings.llm_model,
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        timeout_s=settings.llm_timeout_s,
    )


def upload_secret(settings: Settings) -> bytes | None:
    """The configured secret for upload tickets; None lets the process pick a random one."""
    return settings.upload_secret.get_secret_value().encode() if settings.upload_secret else None
