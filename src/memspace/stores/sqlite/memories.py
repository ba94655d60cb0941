"""Memories in the embedded store: the atomic write batch and forgetting (the MemoryWriteStore
role), a memory by id (read inside the lifecycle marks' transactions too), and the memory
filter as SQL that the reads (memory_reads.py) and the search hits (search.py) share."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from memspace.domain.bitemporal import TimeSlice, valid_from_of
from memspace.domain.errors import Conflict, DuplicateContent, NotFound
from memspace.domain.evidence_codec import evidence_text
from memspace.domain.models import Memory, MemoryFilter
from memspace.domain.ports import WriteBatch
from memspace.domain.text import index_terms
from memspace.stores.sqlite import documents
from memspace.stores.sqlite.records import (
    MEMORY_COLUMNS,
    memory_from_row,
    not_forgotten,
    ts,
    vector_blob,
)


def write(conn: sqlite3.Connection, batch: WriteBatch) -> int:
    """GraphStore.write inside the caller's transaction; the space's version it writes."""
    at = batch.at or (batch.memories[0].created_at if batch.memories else None)
    stamp = touch(conn, batch.space_id, at)
    _supersede(conn, batch, at, stamp)
    documents.check_sources(conn, batch.space_id, batch.memories)
    _refuse_repeats(conn, batch)
    conn.executemany(
        f"INSERT INTO memories ({MEMORY_COLUMNS}, changed_version, terms) "
        f"VALUES ({', '.join('?' * (MEMORY_COLUMNS.count(',') + 3))})",
        [
            (m.id, batch.space_id, m.content, m.category,
             vector_blob(m.embedding) if m.embedding is not None else None,
             int(m.active), ts(m.created_at), m.created_by, m.content_hash, m.document_id,
             ts(m.invalidated_at) if m.invalidated_at else None, m.invalidated_by,
             m.forget_reason, m.forgotten_by, m.origin, m.version, m.speaker,
             m.observed_at.isoformat() if m.observed_at else None, m.context, m.follows,
             evidence_text(m.evidence), m.verification,
             ts(m.verified_at) if m.verified_at else None,
             m.provenance.kind.value if m.provenance else None,
             m.provenance.source if m.provenance else None, m.suspicious,
             m.type.value, m.status.value, m.importance, int(m.canonical),
             ts(valid_from_of(m)), ts(m.valid_to) if m.valid_to else None,
             ts(m.expires_at) if m.expires_at else None, stamp,
             index_terms(m.content, m.context))
            for m in batch.memories
        ],
    )
    linked = {r.source_id for r in batch.relations} | {r.target_id for r in batch.relations}
    if linked:
        found = conn.execute(
            # `+space_id`: found by id, not by reading the whole space through its index.
            "SELECT count(*) FROM memories WHERE +space_id = ? AND id IN "
            "(SELECT value FROM json_each(?))",
            (batch.space_id, json.dumps(sorted(linked))),
        ).fetchone()[0]
        if found != len(linked):
            raise NotFound("a relation points at a memory that is not in this space")
    conn.executemany(
        "INSERT INTO relations (space_id, source_id, target_id, type, created_at, "
        "created_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (batch.space_id, r.source_id, r.target_id, r.type.value, ts(r.created_at),
             r.created_by, r.reason)
            for r in batch.relations
        ],
    )
    if batch.source is not None:
        documents.advance(conn, batch.space_id, batch.source)
    return stamp


def _supersede(conn: sqlite3.Connection, batch: WriteBatch, at: datetime | None, stamp: int) -> None:
    """write's first step: each memory the batch supersedes leaves the current set, or the
    write is refused (Conflict) when one is no longer active."""
    ends = valid_ends(batch)
    for old_id, new_id in batch.supersede.items():
        cur = conn.execute(
            "UPDATE memories SET active = 0, invalidated_at = ?, invalidated_by = ?, "
            "status = 'superseded', changed_version = ?, valid_to = ? "
            "WHERE id = ? AND space_id = ? AND active = 1",
            (ts(at) if at else None, new_id, stamp,
             ts(ends[new_id]) if new_id in ends else (ts(at) if at else None),
             old_id, batch.space_id),
        )
        if cur.rowcount != 1:
            raise Conflict(
                f"memory '{old_id}' is no longer active (another change replaced or "
                "forgot it); search again and correct the current version"
            )


def _refuse_repeats(conn: sqlite3.Connection, batch: WriteBatch) -> None:
    """One active memory per content in a space, checked under the write lock (so two
    writers racing with the same text cannot both pass, as a check before it let them)."""
    hashes = [m.content_hash for m in batch.memories if m.active]
    if len(set(hashes)) != len(hashes):
        raise Conflict("the batch holds the same content twice; write it once")
    if not hashes:
        return
    rows = conn.execute(
        "SELECT content_hash, min(id) FROM memories INDEXED BY memories_by_hash WHERE "
        "space_id = ? AND active = 1 AND content_hash IN (SELECT value FROM json_each(?)) "
        "GROUP BY content_hash",
        (batch.space_id, json.dumps(hashes)),
    ).fetchall()
    if rows:
        raise DuplicateContent({str(r[0]): str(r[1]) for r in rows})


def touch(conn: sqlite3.Connection, space_id: str, at: datetime | None) -> int:
    """Bump the space's version (the vector cache and the change feed key on it); the write
    lock is already held, so versions follow commit order."""
    row = conn.execute(
        "UPDATE spaces SET version = version + 1, "
        "last_active_at = max(last_active_at, coalesce(?, last_active_at)) WHERE id = ? "
        "RETURNING version",
        (ts(at) if at else None, space_id),
    ).fetchone()
    if row is None:
        raise NotFound(f"no space '{space_id}'")
    return int(row[0])


def forget(conn: sqlite3.Connection, space_id: str, memory_id: str, reason: str, by: str,
           at: datetime) -> None:
    """GraphStore.forget inside the caller's transaction."""
    row = conn.execute(
        "SELECT active FROM memories WHERE id = ? AND space_id = ?", (memory_id, space_id)
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory '{memory_id}' in this space")
    if not row[0]:
        raise Conflict(f"memory '{memory_id}' is already inactive; nothing to forget")
    stamp = touch(conn, space_id, at)
    conn.execute(
        "UPDATE memories SET active = 0, invalidated_at = ?, forget_reason = ?, "
        "forgotten_by = ?, status = 'historical', changed_version = ?, version = version + 1 "
        "WHERE id = ?",
        (ts(at), reason, by, stamp, memory_id),
    )


def one(conn: sqlite3.Connection, space_id: str, memory_id: str) -> Memory | None:
    row = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ? AND space_id = ?",
        (memory_id, space_id),
    ).fetchone()
    return memory_from_row(row) if row else None


def filter_sql(where: MemoryFilter, alias: str = "m") -> tuple[str, list[object]]:
    sql = f"{alias}.space_id = ?"
    args: list[object] = [where.space_id]
    if where.at is not None:
        more, extra = slice_sql(where.at, alias)
        sql += more
        args += extra
    elif not where.include_inactive and not where.statuses:
        sql += f" AND {alias}.active = 1"
    if where.category is not None:
        sql += f" AND {alias}.category = ?"
        args.append(where.category)
    if where.types:
        sql += f" AND {alias}.type IN (SELECT value FROM json_each(?))"
        args.append(json.dumps([t.value for t in where.types]))
    if where.statuses:
        sql += f" AND {alias}.status IN (SELECT value FROM json_each(?))"
        args.append(json.dumps([s.value for s in where.statuses]))
    return sql, args


def slice_sql(at: TimeSlice, alias: str) -> tuple[str, list[object]]:
    """domain.bitemporal.holds as SQL: never forgotten; recorded by `known_at` and not yet
    superseded then; valid at `as_of` (a memory superseded then has its valid_to)."""
    m = alias
    sql = f" AND {not_forgotten(m)}"
    args: list[object] = []
    replaced = f"{m}.invalidated_at IS NOT NULL"
    if at.known_at is not None:
        sql += f" AND {m}.created_at <= ?"
        args.append(ts(at.known_at))
        replaced = f"({m}.invalidated_at IS NOT NULL AND {m}.invalidated_at <= ?)"
        extra: list[object] = [ts(at.known_at)]
    else:
        extra = []
    if at.as_of is None:
        return sql + f" AND NOT {replaced}", args + extra
    sql += (f" AND coalesce({m}.valid_from, {m}.created_at) <= ?"
            f" AND (NOT {replaced} OR ({m}.valid_to IS NOT NULL AND {m}.valid_to > ?))")
    return sql, [*args, ts(at.as_of), *extra, ts(at.as_of)]


def valid_ends(batch: WriteBatch) -> dict[str, datetime]:
    """The valid_from of each memory the batch writes: where what it supersedes stops holding."""
    return {m.id: valid_from_of(m) for m in batch.memories}
