"""The checks of document ingestion (services/ingestion/ingestion.py) that need no service: the upload
limit's refusal, a document's title, and whether the key answering for a document may still
have it processed."""

from __future__ import annotations

from memspace.domain.errors import TooLarge
from memspace.domain.models import Document
from memspace.domain.space_ports import KeyStore

MAX_TITLE_CHARS = 200


def too_large(limit: int, size: int | None = None, name: str = "the file") -> TooLarge:
    """The one refusal of an upload over MEMSPACE_MAX_UPLOAD_BYTES (REST also uses it mid-read)."""
    actual = f" is {size:,} bytes;" if size is not None else " is too large:"
    return TooLarge(
        f"{name}{actual} the upload limit is {limit:,} bytes ({limit / 2**20:.0f} MiB, "
        "MEMSPACE_MAX_UPLOAD_BYTES). Split it into smaller files, or ask the operator to raise "
        "the limit; nothing was stored"
    )


def uploader_refusal(keys: KeyStore, document: Document) -> str | None:
    """Why the key answering for the document may no longer have it processed, if so."""
    if document.uploaded_by_key is None:  # the local operator
        return None
    key = keys.get_key(document.uploaded_by_key)
    if key is None or key.revoked_at is not None:
        return ("the API key that uploaded it was revoked, so its processing stopped; a "
                "writer of this space can retry the document")
    access = key.grants.get(document.space_id)
    if access is None or not access.can_write:
        return (f"the API key that uploaded it ('{key.name}') may no longer write this space, "
                "so its processing stopped; a writer of this space can retry the document")
    return None


def document_title(title: str | None, filename: str) -> str:
    text = " ".join((title or "").split()) or filename
    return text[:MAX_TITLE_CHARS]
