"""Where a document's bytes live in the BlobStore: its original, and its text as chunks.

    <space id>/<document id>/original        the uploaded bytes, exactly as received
    <space id>/<document id>/extracted.json  {"version": 1, "chunks": [{"text", "origin"}], "notes"}

The chunks are stored (not re-cut on each run) so that a document's `chunksDone` always means
the same chunks, whatever the chunk size is when a restarted server resumes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from memspace.domain.chunks import Chunk
from memspace.domain.errors import Unavailable
from memspace.domain.files import BlobStore, ExtractedText
from memspace.domain.models import Document

FORMAT_VERSION = 1


class DocumentFiles:
    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    @staticmethod
    def _key(document: Document, name: str) -> str:
        return f"{document.space_id}/{document.id}/{name}"

    def put_original(self, document: Document, data: bytes) -> None:
        self._blobs.put(self._key(document, "original"), data)

    def drop_original(self, document: Document) -> None:
        """Delete the original (its bytes held a credential the space does not keep)."""
        self._blobs.delete(self._key(document, "original"))

    def original(self, document: Document) -> bytes:
        """Raises NotFound when the original is gone from the data folder."""
        return self._blobs.get(self._key(document, "original"))

    def sweep_orphans(self, has_document: Callable[[str, str], bool], age_s: float) -> int:
        """Delete what a crash left of uploads that never became a document (the original is
        written before the document is recorded) once older than `age_s`; how many blobs."""
        known: dict[tuple[str, str], bool] = {}
        removed = 0
        for key in self._blobs.written_before(age_s):
            parts = key.split("/")
            if len(parts) != 3:
                continue
            owner = (parts[0], parts[1])
            if owner not in known:
                known[owner] = has_document(*owner)
            if not known[owner]:
                self._blobs.delete(key)
                removed += 1
        return removed

    def put_text(self, document: Document, text: ExtractedText) -> None:
        payload = {
            "version": FORMAT_VERSION,
            "chunks": [{"text": c.text, "origin": c.origin} for c in text.chunks],
            "notes": list(text.notes),
        }
        self._blobs.put(self._key(document, "extracted.json"),
                        json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    def text(self, document: Document) -> ExtractedText:
        """Raises NotFound when there is none (the file could not be read, or it was lost)."""
        raw = self._blobs.get(self._key(document, "extracted.json"))
        try:
            payload = json.loads(raw)
            chunks = tuple(Chunk(str(c["text"]), str(c["origin"])) for c in payload["chunks"])
            return ExtractedText(chunks, tuple(str(n) for n in payload.get("notes", [])))
        except (ValueError, KeyError, TypeError) as exc:
            raise Unavailable(
                f"the extracted text of document '{document.id}' is damaged ({exc}); retry the "
                "document to read it again from its original"
            ) from exc
