"""Small builders for records, so tests say only what matters to them."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from itertools import count

from memspace.domain.models import Document, DocumentStatus, Memory, Relation, RelationType, Space
from memspace.domain.text import content_hash

_seq = count(1)
# Unique per run, so tests can share one long-lived Neo4j database without colliding.
_RUN = uuid.uuid4().hex[:8]
BASE = datetime(2026, 3, 1, tzinfo=UTC)
# A space's records are built a minute apart from BASE, counted per space: a record's time then
# depends on what was built in its space before it, never on how many tests ran earlier in the
# session (a session-wide count put a late test's memories past the dates it reads at).
_minute: defaultdict[str, count[int]] = defaultdict(lambda: count(1))


def _at(space_id: str, minutes: int | None) -> datetime:
    return BASE + timedelta(minutes=minutes if minutes is not None else next(_minute[space_id]))


def space(slug: str = "acme") -> Space:
    n = next(_seq)
    return Space(f"space-{_RUN}-{n}", f"{slug}-{_RUN}-{n}", slug.title(), "", BASE, BASE)


def memory(
    space_id: str,
    content: str,
    embedding: list[float] | None = None,
    category: str = "general",
    minutes: int | None = None,
) -> Memory:
    n = next(_seq)
    at = _at(space_id, minutes)
    return Memory(
        id=f"mem-{_RUN}-{n:06d}", space_id=space_id, content=content, category=category,
        embedding=embedding, active=True, created_at=at, created_by="test",
        content_hash=content_hash(content),
    )


def relation(source: Memory, target: Memory, kind: RelationType = RelationType.EXTENDS) -> Relation:
    return Relation(source.id, target.id, kind, source.created_at, "test", f"{kind.value} for test")


def document(space_id: str, title: str = "notes.md", status: DocumentStatus = DocumentStatus.QUEUED,
             minutes: int | None = None, chunks_total: int = 0) -> Document:
    """A document with a sha256 unique to this run (a space holds one document per sha256)."""
    n = next(_seq)
    at = _at(space_id, minutes)
    return Document(f"doc-{_RUN}-{n:06d}", space_id, title, "markdown", 100, f"sha-{_RUN}-{n}",
                    status, at, "alice", chunks_total=chunks_total)
