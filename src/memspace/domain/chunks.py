"""A document's text in pieces: the chunks that go through the add pipeline one add each, and
what such an add records about its chunk."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    """A piece of a document's text that goes through the add pipeline as one add."""

    text: str
    origin: str  # where it came from, for people: "page 3", "rows 2-14", "Setup > Install"


@dataclass(frozen=True)
class ChunkSource:
    """What an add of a document's chunk records: the link, the origin and the progress."""

    document_id: str
    chunk: int  # index in the document's chunks
    origin: str | None = None
