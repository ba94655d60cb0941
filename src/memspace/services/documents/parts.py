"""The documents package's service built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from memspace.domain.graph_port import GraphStore, roles_for
from memspace.services.access import AccessService
from memspace.services.documents.document_files import DocumentFiles
from memspace.services.documents.documents import DocumentPorts, DocumentService


def document_service(store: GraphStore, access: AccessService, files: DocumentFiles,
                     max_page_size: int) -> DocumentService:
    """`files`: where a document's bytes and extracted chunks are kept."""
    return DocumentService(roles_for(DocumentPorts, store), access, files, max_page_size)
