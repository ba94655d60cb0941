"""The ingestion package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memspace.domain.files import DocumentReader
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.documents import DocumentFiles
from memspace.services.evidence import RepoService
from memspace.services.ingestion.ingest_worker import IngestionWorker
from memspace.services.ingestion.ingestion import IngestionPorts, IngestionService
from memspace.services.ingestion.mining import GitMining
from memspace.services.memories import MemoryParts, MemoryService
from memspace.services.security import ContentGuard


@dataclass(frozen=True)
class IngestionParts:
    ingestion: IngestionService  # documents written through the memories with the model
    worker: IngestionWorker  # started by the server (startup/app.py), not by the CLI
    mining: GitMining
    flat: IngestionService  # the demo's documents, written through the memories without one


def ingestion_parts(store: GraphStore, access: AccessService, memories: MemoryParts,
                    reader: DocumentReader, files: DocumentFiles, clock: Clock, *,
                    max_upload_bytes: int, prefetch: Callable[[Sequence[str]], None],
                    guard: ContentGuard, repos: RepoService) -> IngestionParts:
    """`reader`: a document's text from its bytes; `prefetch`: the embedder's batches ahead
    of a document's chunks; `repos`: the repositories whose commits mining reads."""
    def over(written_by: MemoryService) -> IngestionService:
        return IngestionService(roles_for(IngestionPorts, store), access, written_by, reader,
                                files, clock, max_upload_bytes, prefetch, guard)

    ingestion = over(memories.memories)
    return IngestionParts(
        ingestion=ingestion,
        worker=IngestionWorker(ingestion, memories.notes),
        mining=GitMining(repos, store.code_index, memories.memories),
        flat=over(memories.flat),
    )
