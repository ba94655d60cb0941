"""What the guard step did to a document's chunks, kept on the document (docs/security.md).

A document follows its space's secrets policy chunk by chunk: under `refuse` a chunk holding a
credential is not stored and the document goes on with the next one; under `redact` the chunk
is stored with `[redacted:<kind>]`. Either is reported in the document's `error` field, as one
line starting `secrets:` (kinds and places only, never a value), kept across a restart because
it is written with each progress step, and left on the document when it is `done`.
"""

from __future__ import annotations

from memspace.domain.errors import ContainsSecret
from memspace.domain.models import Document

PREFIX = "secrets: "


def carried(document: Document) -> list[str]:
    """The entries an earlier run of this document already reported."""
    if document.error and document.error.startswith(PREFIX):
        return document.error[len(PREFIX):].split(" | ")
    return []


def refused(index: int, origin: str, exc: ContainsSecret) -> str:
    kinds = ", ".join(f"{kind} at {where}" for _, kind, where in exc.findings)
    return f"chunk {index + 1} ({origin}) refused, not stored: {kinds}"


def redacted(index: int, origin: str, warnings: list[str]) -> str | None:
    hits = [w.split(" was stored as")[0] for w in warnings if "[redacted:" in w]
    return f"chunk {index + 1} ({origin}) stored redacted: {', '.join(hits)}" if hits else None


def note(entries: list[str]) -> str | None:
    return PREFIX + " | ".join(entries) if entries else None
