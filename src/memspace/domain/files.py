"""Ports for uploaded files: where their bytes live and how their text is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from memspace.domain.chunks import Chunk


class BlobStore(Protocol):
    """Bytes by key (`<space id>/<document id>/<name>`): uploaded originals and their text."""

    def put(self, key: str, data: bytes) -> None:
        """Store atomically: a reader sees the whole old value or the whole new one.

        Raises:
            Unavailable: the bytes could not be stored (disk full, no permission).
        """

    def get(self, key: str) -> bytes:
        """Raises NotFound when nothing is stored under `key`, Unavailable when unreadable."""

    def written_before(self, age_s: float) -> list[str]:
        """Keys last written more than `age_s` seconds ago, with the leftovers of writes a crash
        cut short (which `get` never returns, but `delete` removes)."""

    def delete(self, key: str) -> None:
        """Remove the value (and folders left empty); nothing stored is not an error."""


@dataclass(frozen=True)
class ExtractedText:
    """A document's text, already cut into chunks that each fit one add."""

    chunks: tuple[Chunk, ...]
    notes: tuple[str, ...] = ()  # what reading noticed, e.g. "decoded as Windows-1252"


class DocumentReader(Protocol):
    """Recognises a file's kind and turns its bytes into chunks with their origins."""

    def kind_of(self, filename: str, data: bytes) -> str:
        """`pdf`, `csv`, `markdown` or `text`.

        Raises:
            InvalidInput: not a kind memspace reads; the message lists the ones it does.
        """

    def read(self, kind: str, data: bytes) -> ExtractedText:
        """Raises UnreadableDocument saying why and what to do (encrypted, damaged, ...)."""
