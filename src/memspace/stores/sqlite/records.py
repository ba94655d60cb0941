"""Row <-> record mapping for the embedded store."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from memspace.domain.evidence_codec import evidence_of
from memspace.domain.lifecycle import MemoryStatus, MemoryType
from memspace.domain.models import (
    Access,
    ApiKey,
    Document,
    DocumentStatus,
    Memory,
    Provenance,
    ProvenanceKind,
    Relation,
    RelationType,
    Space,
)

MEMORY_COLUMNS = (
    "id, space_id, content, category, embedding, active, created_at, created_by, content_hash, "
    "document_id, invalidated_at, invalidated_by, forget_reason, forgotten_by, origin, version, "
    "speaker, observed_at, context, follows, evidence, verification, verified_at, "
    "provenance_kind, provenance_source, suspicious, type, status, importance, canonical, "
    "valid_from, valid_to, expires_at"
)


def ids_with_prefix_sql(table: str) -> str:
    """The ids of `table` (memories, documents, code_chunks) in one space starting with a prefix:
    a range on the primary key's index (LIKE would walk the table). The space's test is written
    `+space_id` so SQLite cannot answer from the space's index instead, which reads every row
    of the space and sorts them, for each prefix."""
    return (f"SELECT id FROM {table} WHERE id >= ? AND id < ? AND +space_id = ? "
            "ORDER BY id LIMIT ?")


def ids_with_prefix(conn: sqlite3.Connection, table: str, space_id: str,
                    prefixes: Sequence[str], limit: int) -> list[str]:
    """Up to `limit` ids of the space starting with each prefix (ids_with_prefix_sql)."""
    sql, found = ids_with_prefix_sql(table), []
    for prefix in dict.fromkeys(prefixes):
        found += [r[0] for r in conn.execute(sql, (prefix, prefix + "\U0010ffff", space_id,
                                                    limit))]
    return found


def not_forgotten(alias: str) -> str:
    """domain.bitemporal.forgotten negated, as SQL: a memory retired at its expiry (its
    invalidated_at is its expires_at) held until then, so reads of the past still show it."""
    m = alias
    return (f"(({m}.forgotten_by IS NULL AND {m}.forget_reason IS NULL) "
            f"OR {m}.invalidated_at = {m}.expires_at)")


def ts(value: datetime) -> str:
    """UTC ISO-8601 with microseconds: lexical order is time order."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(value: str | None) -> datetime | None:
    if value is None:
        return None
    # fromisoformat reads what ts() writes ~10x faster than strptime, which was 4 ms of a
    # 100k-memory search (100 rows read per hybrid search; cProfile, bench_stores.py data).
    return datetime.fromisoformat(value).astimezone(UTC)


def req_ts(value: str) -> datetime:
    parsed = parse_ts(value)
    assert parsed is not None
    return parsed


def vector_blob(vector: object) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def space_from_row(row: sqlite3.Row) -> Space:
    return Space(
        id=row["id"],
        slug=row["slug"],
        name=row["name"],
        description=row["description"],
        created_at=req_ts(row["created_at"]),
        last_active_at=req_ts(row["last_active_at"]),
        instructions=row["instructions"],
    )


def key_from_row(row: sqlite3.Row, grants: dict[str, Access], spaces: tuple[Space, ...]) -> ApiKey:
    return ApiKey(
        id=row["id"],
        name=row["name"],
        prefix=row["prefix"],
        sha256=row["sha256"],
        grants=grants,
        default_space_id=row["default_space_id"],
        active_space_id=row["active_space_id"],
        created_at=req_ts(row["created_at"]),
        revoked_at=parse_ts(row["revoked_at"]),
        toolsets=tuple(row["toolsets"].split(",")) if row["toolsets"] is not None else None,
        spaces=spaces,
    )


def memory_from_row(row: sqlite3.Row, with_embedding: bool = False) -> Memory:
    blob = row["embedding"] if with_embedding else None
    return Memory(
        id=row["id"],
        space_id=row["space_id"],
        content=row["content"],
        category=row["category"],
        embedding=np.frombuffer(blob, dtype=np.float32).tolist() if blob else None,
        active=bool(row["active"]),
        created_at=req_ts(row["created_at"]),
        created_by=row["created_by"],
        content_hash=row["content_hash"],
        document_id=row["document_id"],
        origin=row["origin"],
        invalidated_at=parse_ts(row["invalidated_at"]),
        invalidated_by=row["invalidated_by"],
        forget_reason=row["forget_reason"],
        forgotten_by=row["forgotten_by"],
        version=row["version"],
        speaker=row["speaker"],
        observed_at=datetime.fromisoformat(row["observed_at"]) if row["observed_at"] else None,
        context=row["context"],
        follows=row["follows"],
        evidence=evidence_of(row["evidence"]),
        verification=row["verification"],
        verified_at=parse_ts(row["verified_at"]),
        provenance=Provenance(ProvenanceKind(row["provenance_kind"]), row["provenance_source"] or "")
        if row["provenance_kind"] else None,
        suspicious=row["suspicious"],
        type=MemoryType(row["type"]),
        status=MemoryStatus(row["status"]),
        importance=row["importance"],
        canonical=bool(row["canonical"]),
        valid_from=parse_ts(row["valid_from"]),
        valid_to=parse_ts(row["valid_to"]),
        expires_at=parse_ts(row["expires_at"]),
    )


def relation_from_row(row: sqlite3.Row) -> Relation:
    return Relation(
        source_id=row["source_id"],
        target_id=row["target_id"],
        type=RelationType(row["type"]),
        created_at=req_ts(row["created_at"]),
        created_by=row["created_by"],
        reason=row["reason"],
    )


def document_from_row(row: sqlite3.Row) -> Document:
    return Document(
        id=row["id"],
        space_id=row["space_id"],
        title=row["title"],
        kind=row["kind"],
        size_bytes=row["size_bytes"],
        sha256=row["sha256"],
        status=DocumentStatus(row["status"]),
        error=row["error"],
        fact_count=row["fact_count"],
        created_at=req_ts(row["created_at"]),
        created_by=row["created_by"],
        chunks_total=row["chunks_total"],
        chunks_done=row["chunks_done"],
        uploaded_by_key=row["uploaded_by_key"],
    )
