"""The write guard on an uploaded document: its title and file name, the file itself, and the text
read from it, under the space's secrets policy (services/security/guard.py), so that no byte a reader can
fetch holds a credential the space refuses or redacts.

- **A text file** (Markdown, CSV, plain text) up to 128 KiB is read at upload: under `refuse` an
  upload holding a credential is refused whole (ContainsSecret names the kind and where: line and
  characters), nothing stored; under `redact` the file is stored with each credential replaced.
- **A PDF**, or a larger text file, is read by the worker: its extracted text is screened chunk by
  chunk before it is stored. Under `refuse` the document fails saying which kinds and where, and its original
  is deleted; under `redact` the redacted text is kept and the original deleted (its bytes cannot
  be redacted), so a retry reads the kept text.
"""

from __future__ import annotations

from memspace.domain.chunks import Chunk
from memspace.domain.errors import ContainsSecret, UnreadableDocument
from memspace.domain.files import ExtractedText
from memspace.domain.models import Document
from memspace.ingest.decoding import decode
from memspace.services.security.guard import ContentGuard

TEXT_KINDS = ("markdown", "csv", "text")
# A text file up to this size is scanned whole as it is uploaded (the scanner reads ~150,000
# characters a second, so the request waits under a second); a larger one is screened like a
# PDF, chunk by chunk by the worker, so an upload never waits on a long scan.
SCAN_AT_UPLOAD_BYTES = 128 * 1024


def scanned_at_upload(kind: str, size: int) -> bool:
    return kind in TEXT_KINDS and size <= SCAN_AT_UPLOAD_BYTES


def screened_upload(guard: ContentGuard | None, space_id: str, actor: str, kind: str,
                    data: bytes, title: str, filename: str,
                    document_id: str | None = None) -> tuple[bytes, str]:
    """The bytes and the title to store (a redaction audited as done to `document_id`).

    Raises:
        ContainsSecret: the space refuses credentials and the title, the file name or (for a
            text file) the file holds one; nothing was stored.
    """
    if guard is None:
        return data, title
    fields = {"title": title, "filename": filename}
    text = None
    if scanned_at_upload(kind, len(data)):
        try:
            text, _ = decode(data, "file")
        except UnreadableDocument:  # the worker will fail it, saying why
            text = None
    if text is not None:
        fields["file"] = text
    try:
        kept = guard.screen(space_id, fields, actor, target=document_id).fields
    except ContainsSecret as exc:  # the example is the upload's title and name, not the file
        raise ContainsSecret(exc.findings, {k: v for k, v in exc.without.items()
                                            if k != "file"}) from exc
    if text is not None and kept["file"] != text:
        data = kept["file"].encode("utf-8")
    return data, kept["title"]


def screened_text(guard: ContentGuard | None, document: Document,
                  text: ExtractedText) -> tuple[ExtractedText, str | None, bool]:
    """The extracted text to store, why the document is refused (None when it is not), and
    whether a credential was redacted from it (its original must then go). A small text file
    was screened as it was uploaded, so its text is not screened again."""
    if guard is None or scanned_at_upload(document.kind, document.size_bytes):
        return text, None, False
    fields = {f"chunk {i + 1} ({c.origin})": c.text for i, c in enumerate(text.chunks)}
    try:
        kept = guard.screen(document.space_id, fields, document.created_by,
                            target=document.id).fields
    except ContainsSecret as exc:
        found = "; ".join(f"{kind} in {field} at {where}" for field, kind, where in exc.findings)
        return text, (f"refused: it holds what looks like a credential ({found}) and this space "
                      "refuses secrets, so nothing of it is kept. Upload it again without them, "
                      "or ask the operator for `memspace space set SPACE --secrets redact`"), False
    chunks = tuple(Chunk(kept[name], c.origin) for name, c in zip(fields, text.chunks, strict=True))
    return ExtractedText(chunks, text.notes), None, chunks != text.chunks
