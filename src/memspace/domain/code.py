"""Repositories registered per space and the code index built from them (services/evidence/repos.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Repo:
    """A git checkout the server reads, bound to one space. `name` is unique in the store."""

    id: str
    space_id: str
    name: str
    path: str
    created_at: datetime
    synced_at: datetime | None = None
    head: str | None = None  # the commit the last sync indexed
    generation: int = 0  # bumped by every sync that changed the index


@dataclass(frozen=True)
class CodeChunk:
    """Lines `start_line`..`end_line` (1-based, inclusive) of one file: `body` is exactly them."""

    id: str
    space_id: str
    repo_id: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    language: str
    body: str


@dataclass(frozen=True)
class IndexedFile:
    """One file as a sync indexes it: its hash, its language and its chunks."""

    path: str
    sha256: str
    language: str
    chunks: tuple[CodeChunk, ...]
