"""Reading documents: listings, status and their text a page of chunks at a time.

- `DocumentService` over `DocumentPorts`, answering `DocumentPage`;
- `DocumentFiles`: where a document's bytes and extracted chunks live in the blob store;
- `document_titles`: the titles a search shows beside the memories of documents.
- `document_service` builds `DocumentService` from the store's roles (start-up calls it).
"""

from memspace.services.documents.document_files import DocumentFiles
from memspace.services.documents.documents import (
    DocumentPage,
    DocumentPorts,
    DocumentService,
    document_titles,
)
from memspace.services.documents.parts import document_service

__all__ = [
    "DocumentFiles",
    "DocumentPage",
    "DocumentPorts",
    "DocumentService",
    "document_service",
    "document_titles",
]
