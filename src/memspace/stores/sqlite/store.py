"""The embedded GraphStore: one SQLite file, FTS5 for text, exact vector scan, recursive CTEs."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from memspace.domain.errors import Conflict, DuplicateContent, NotFound, Unavailable
from memspace.domain.models import (
    Access,
    ApiKey,
    Document,
    DocumentStatus,
    Handoff,
    Memory,
    MemoryFilter,
    Neighbour,
    Relation,
    RelationType,
    ScoredMemory,
    Space,
    SpaceStats,
    Usage,
)
from memspace.domain.ports import Change, ChangeAfter, PageAfter, Vector, WriteBatch
from memspace.domain.text import index_terms, max_edits, query_terms, tolerated, words
from memspace.stores.sqlite import documents, fulltext, handoffs
from memspace.stores.sqlite.migrations import backfill_terms, migrate
from memspace.stores.sqlite.rows import (
    MEMORY_COLUMNS,
    key_from_row,
    memory_from_row,
    relation_from_row,
    space_from_row,
    ts,
    vector_blob,
)
from memspace.stores.vector_cache import Row as CacheRow
from memspace.stores.vector_cache import VectorCache

# How long a writer waits for another process's write lock before giving up (CLI beside server).
BUSY_TIMEOUT_MS = 10_000


class SqliteStore:
    """GraphStore on one SQLite file (or `:memory:` for tests), one connection per thread."""

    def __init__(self, path: Path | str) -> None:
        self._path = str(path)
        if self._path != ":memory:":
            Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        else:
            # One shared in-memory database for every thread of this store.
            self._path = f"file:memspace-{id(self)}?mode=memory&cache=shared"
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # Snapshots of the vector cache beside the database file (stores/vector_snapshot.py).
        snapshots = None if self._path.startswith("file:") else Path(self._path + ".vectors")
        self._vectors = self.vector_cache = VectorCache(snapshots)  # sizes exported by /metrics
        self._vocab: tuple[int, list[str]] = (-1, [])
        self._keeper = self._conn()  # keeps a shared in-memory database alive
        migrate(self._keeper)
        backfill_terms(self._keeper)

    # -- plumbing ---------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(
                    self._path, uri=self._path.startswith("file:"), check_same_thread=False,
                    isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                )
            except sqlite3.Error as exc:
                raise Unavailable(f"cannot open the SQLite store at {self._path}: {exc}") from exc
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (no upgrade deadlocks)."""
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:  # another process holds the write lock
            raise Unavailable(
                f"the SQLite store is busy ({exc}) after waiting {BUSY_TIMEOUT_MS / 1000:.0f} s; "
                "retry shortly"
            ) from exc
        try:
            yield conn
        except sqlite3.IntegrityError as exc:
            conn.execute("ROLLBACK")
            raise Conflict(f"the change conflicts with stored data ({exc})") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise Unavailable(f"the SQLite store could not commit: {exc}") from exc

    def ping(self) -> None:
        try:
            self._conn().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise Unavailable(f"the SQLite store does not answer: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()

    # -- spaces -----------------------------------------------------------------------------

    def create_space(self, space: Space) -> None:
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO spaces (id, slug, name, description, created_at, last_active_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (space.id, space.slug, space.name, space.description,
                     ts(space.created_at), ts(space.last_active_at)),
                )
        except Conflict as exc:
            raise Conflict(f"a space with slug '{space.slug}' already exists") from exc

    def get_space(self, space_id: str) -> Space | None:
        row = self._conn().execute("SELECT * FROM spaces WHERE id = ?", (space_id,)).fetchone()
        return space_from_row(row) if row else None

    def get_space_by_slug(self, slug: str) -> Space | None:
        row = self._conn().execute("SELECT * FROM spaces WHERE slug = ?", (slug,)).fetchone()
        return space_from_row(row) if row else None

    def list_spaces(self) -> list[Space]:
        rows = self._conn().execute("SELECT * FROM spaces ORDER BY slug").fetchall()
        return [space_from_row(r) for r in rows]

    def space_stats(self, space_id: str) -> SpaceStats:
        conn = self._conn()
        active, inactive = conn.execute(
            "SELECT coalesce(sum(active), 0), coalesce(sum(1 - active), 0) FROM memories "
            "WHERE space_id = ?", (space_id,),
        ).fetchone()
        relations = conn.execute(
            "SELECT count(*) FROM relations WHERE space_id = ?", (space_id,)
        ).fetchone()[0]
        documents = conn.execute(
            "SELECT count(*) FROM documents WHERE space_id = ?", (space_id,)
        ).fetchone()[0]
        return SpaceStats(int(active), int(inactive), int(relations), int(documents))

    # -- keys -------------------------------------------------------------------------------

    def create_key(self, key: ApiKey) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO api_keys (id, name, prefix, sha256, default_space_id, active_space_id,"
                " created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                (key.id, key.name, key.prefix, key.sha256, key.default_space_id,
                 key.active_space_id, ts(key.created_at)),
            )
            conn.executemany(
                "INSERT INTO key_grants (key_id, space_id, access) VALUES (?, ?, ?)",
                [(key.id, space_id, access.value) for space_id, access in key.grants.items()],
            )

    def _key(self, where: str, value: str) -> ApiKey | None:
        conn = self._conn()
        row = conn.execute(f"SELECT * FROM api_keys WHERE {where} = ?", (value,)).fetchone()
        if row is None:
            return None
        grants = conn.execute(
            "SELECT space_id, access FROM key_grants WHERE key_id = ?", (row["id"],)
        ).fetchall()
        return key_from_row(row, {g["space_id"]: Access(g["access"]) for g in grants})

    def get_key(self, key_id: str) -> ApiKey | None:
        return self._key("id", key_id)

    def get_key_by_hash(self, sha256: str) -> ApiKey | None:
        return self._key("sha256", sha256)

    def list_keys(self) -> list[ApiKey]:
        ids = [r[0] for r in self._conn().execute("SELECT id FROM api_keys ORDER BY created_at")]
        return [k for k in (self.get_key(i) for i in ids) if k is not None]

    def revoke_key(self, key_id: str, at: datetime) -> None:
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                (ts(at), key_id),
            )
            if cur.rowcount == 0:
                raise NotFound(f"no API key with id '{key_id}'; `memspace key list` shows them")

    def set_active_space(self, key_id: str, space_id: str | None) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE api_keys SET active_space_id = ? WHERE id = ?", (space_id, key_id))

    # -- memories ---------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        at = batch.at or (batch.memories[0].created_at if batch.memories else None)
        with self._tx() as conn:
            stamp = self._touch(conn, batch.space_id, at)
            for old_id, new_id in batch.supersede.items():
                cur = conn.execute(
                    "UPDATE memories SET active = 0, invalidated_at = ?, invalidated_by = ?, "
                    "changed_version = ? WHERE id = ? AND space_id = ? AND active = 1",
                    (ts(at) if at else None, new_id, stamp, old_id, batch.space_id),
                )
                if cur.rowcount != 1:
                    raise Conflict(
                        f"memory '{old_id}' is no longer active (another change replaced or "
                        "forgot it); search again and correct the current version"
                    )
            documents.check_sources(conn, batch.space_id, batch.memories)
            self._refuse_repeats(conn, batch)
            conn.executemany(
                f"INSERT INTO memories ({MEMORY_COLUMNS}, changed_version, terms) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (m.id, batch.space_id, m.content, m.category,
                     vector_blob(m.embedding) if m.embedding is not None else None,
                     int(m.active), ts(m.created_at), m.created_by, m.content_hash, m.document_id,
                     ts(m.invalidated_at) if m.invalidated_at else None, m.invalidated_by,
                     m.forget_reason, m.forgotten_by, m.origin, m.version, m.speaker,
                     m.observed_at.isoformat() if m.observed_at else None, m.context, stamp,
                     index_terms(m.content, m.context))
                    for m in batch.memories
                ],
            )
            ends = {r.source_id for r in batch.relations} | {r.target_id for r in batch.relations}
            if ends:
                found = conn.execute(
                    "SELECT count(*) FROM memories WHERE space_id = ? AND id IN "
                    "(SELECT value FROM json_each(?))",
                    (batch.space_id, json.dumps(sorted(ends))),
                ).fetchone()[0]
                if found != len(ends):
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

    @staticmethod
    def _refuse_repeats(conn: sqlite3.Connection, batch: WriteBatch) -> None:
        """One active memory per content in a space, checked under the write lock (so two
        writers racing with the same text cannot both pass, as a check before it let them)."""
        hashes = [m.content_hash for m in batch.memories if m.active]
        if len(set(hashes)) != len(hashes):
            raise Conflict("the batch holds the same content twice; write it once")
        if not hashes:
            return
        rows = conn.execute(
            "SELECT content_hash, min(id) FROM memories WHERE space_id = ? AND active = 1 AND "
            "content_hash IN (SELECT value FROM json_each(?)) GROUP BY content_hash",
            (batch.space_id, json.dumps(hashes)),
        ).fetchall()
        if rows:
            raise DuplicateContent({str(r[0]): str(r[1]) for r in rows})

    @staticmethod
    def _touch(conn: sqlite3.Connection, space_id: str, at: datetime | None) -> int:
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

    def forget(self, space_id: str, memory_id: str, reason: str, by: str, at: datetime) -> Memory:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT active FROM memories WHERE id = ? AND space_id = ?", (memory_id, space_id)
            ).fetchone()
            if row is None:
                raise NotFound(f"no memory '{memory_id}' in this space")
            if not row[0]:
                raise Conflict(f"memory '{memory_id}' is already inactive; nothing to forget")
            stamp = self._touch(conn, space_id, at)
            conn.execute(
                "UPDATE memories SET active = 0, invalidated_at = ?, forget_reason = ?, "
                "forgotten_by = ?, changed_version = ?, version = version + 1 WHERE id = ?",
                (ts(at), reason, by, stamp, memory_id),
            )
        memory = self.get_memory(space_id, memory_id)
        assert memory is not None
        return memory

    def get_memory(self, space_id: str, memory_id: str) -> Memory | None:
        row = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ? AND space_id = ?",
            (memory_id, space_id),
        ).fetchone()
        return memory_from_row(row) if row else None

    def find_active_by_hash(self, space_id: str, content_hash: str) -> Memory | None:
        row = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE space_id = ? AND content_hash = ? "
            "AND active = 1",
            (space_id, content_hash),
        ).fetchone()
        return memory_from_row(row) if row else None

    def similarities(self, space_id: str, embedding: Vector,
                     memory_ids: Sequence[str]) -> dict[str, float]:
        if not memory_ids:
            return {}
        rows = self._conn().execute(
            "SELECT rowid, id FROM memories WHERE space_id = ? AND id IN "
            "(SELECT value FROM json_each(?))",
            (space_id, json.dumps(list(memory_ids))),
        ).fetchall()
        ids = {int(r[0]): str(r[1]) for r in rows}
        scores = self._vectors.scores_of(self, space_id, np.asarray(embedding, dtype=np.float32),
                                         list(ids))
        return {ids[seq]: score for seq, score in scores.items()}

    def latest_by_writer(self, space_id: str, created_by: str, since: datetime) -> Memory | None:
        row = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories INDEXED BY memories_by_writer "
            "WHERE space_id = ? AND created_by = ? AND created_at >= ? AND document_id IS NULL "
            "ORDER BY created_at DESC, rowid DESC LIMIT 1",
            (space_id, created_by, ts(since)),
        ).fetchone()
        return memory_from_row(row) if row else None

    @staticmethod
    def _filter_sql(where: MemoryFilter, alias: str = "m") -> tuple[str, list[object]]:
        sql = f"{alias}.space_id = ?"
        args: list[object] = [where.space_id]
        if not where.include_inactive:
            sql += f" AND {alias}.active = 1"
        if where.category is not None:
            sql += f" AND {alias}.category = ?"
            args.append(where.category)
        return sql, args

    def list_memories(
        self, where: MemoryFilter, limit: int, after: PageAfter | None = None
    ) -> list[Memory]:
        sql, args = self._filter_sql(where)
        if after is not None:
            sql += " AND (m.created_at, m.id) < (?, ?)"
            args += [ts(after.created_at), after.id]
        rows = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {sql} "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [memory_from_row(r) for r in rows]

    def memories_of_document(self, space_id: str, document_id: str, limit: int) -> list[Memory]:
        rows = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.space_id = ? AND m.document_id = ? "
            "ORDER BY m.created_at, m.id LIMIT ?",
            (space_id, document_id, limit),
        ).fetchall()
        return [memory_from_row(r) for r in rows]

    def list_changes(
        self, where: MemoryFilter, limit: int, after: ChangeAfter | None = None,
        since: datetime | None = None,
    ) -> list[Change]:
        sql, args = self._filter_sql(replace(where, include_inactive=True))
        if after is not None:
            sql += " AND (m.changed_version, m.id) > (?, ?)"
            args += [after.stamp, after.id]
        if since is not None:
            sql += " AND (m.created_at >= ? OR m.invalidated_at >= ?)"
            args += [ts(since), ts(since)]
        rows = self._conn().execute(
            f"SELECT {MEMORY_COLUMNS}, m.changed_version FROM memories m WHERE {sql} "
            "ORDER BY m.changed_version, m.id LIMIT ?",
            (*args, limit),
        ).fetchall()
        return [Change(memory_from_row(r), int(r["changed_version"])) for r in rows]

    def relations_of(self, space_id: str, memory_id: str) -> list[Relation]:
        rows = self._conn().execute(
            "SELECT * FROM relations WHERE space_id = ? AND (source_id = ? OR target_id = ?) "
            "ORDER BY created_at, id",
            (space_id, memory_id, memory_id),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    def open_conflicts(self, space_id: str, limit: int) -> list[Relation]:
        rows = self._conn().execute(
            "SELECT r.* FROM relations r JOIN memories n ON n.id = r.source_id "
            "JOIN memories o ON o.id = r.target_id WHERE r.space_id = ? AND r.type = 'UPDATES' "
            "AND n.active = 1 AND o.active = 1 ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
            (space_id, limit),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    def relations_among(self, space_id: str, memory_ids: Sequence[str]) -> list[Relation]:
        if not memory_ids:
            return []
        rows = self._conn().execute(
            "WITH ids(id) AS (SELECT value FROM json_each(?)) "
            "SELECT r.* FROM relations r WHERE r.space_id = ? "
            "AND r.source_id IN (SELECT id FROM ids) AND r.target_id IN (SELECT id FROM ids) "
            "ORDER BY r.created_at, r.id",
            (json.dumps(list(memory_ids)), space_id),
        ).fetchall()
        return [relation_from_row(r) for r in rows]

    # -- search -----------------------------------------------------------------------------

    def _memories_by_rowid(self, scored: list[tuple[int, float]]) -> list[ScoredMemory]:
        if not scored:
            return []
        rows = self._conn().execute(
            f"SELECT rowid, {MEMORY_COLUMNS} FROM memories WHERE rowid IN "
            "(SELECT value FROM json_each(?))",
            (json.dumps([r for r, _ in scored]),),
        ).fetchall()
        by_rowid = {r["rowid"]: memory_from_row(r) for r in rows}
        return [ScoredMemory(by_rowid[r], s) for r, s in scored if r in by_rowid]

    def vector_search(self, where: MemoryFilter, embedding: Vector, limit: int) -> list[ScoredMemory]:
        query = np.asarray(embedding, dtype=np.float32)
        hits = self._vectors.top_k(
            self, where.space_id, query, limit, where.category, where.include_inactive
        )
        return self._memories_by_rowid(hits)

    # VectorSource: the rowid is the sequence number (rows are never deleted).

    def vector_version(self, space_id: str) -> int:
        row = self._conn().execute("SELECT version FROM spaces WHERE id = ?", (space_id,)).fetchone()
        return int(row[0]) if row else 0

    def vectors_after(self, space_id: str, after_seq: int) -> list[CacheRow]:
        rows = self._conn().execute(
            "SELECT rowid, embedding, category, terms FROM memories "
            "WHERE space_id = ? AND rowid > ? ORDER BY rowid",
            (space_id, after_seq),
        ).fetchall()
        return [(int(r[0]), r[1], str(r[2]), r[3] or "") for r in rows]

    def inactive_seqs(self, space_id: str, upto_seq: int) -> list[int]:
        rows = self._conn().execute(
            "SELECT rowid FROM memories WHERE space_id = ? AND active = 0 AND rowid <= ?",
            (space_id, upto_seq),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def _fts(self, where: MemoryFilter, match: str, limit: int) -> list[ScoredMemory]:
        sql, args = self._filter_sql(where)
        return self._memories_by_rowid(
            fulltext.ranked(self._conn(), "memory_fts", match, sql, args, limit))

    def text_search(self, where: MemoryFilter, text: str, limit: int) -> list[ScoredMemory]:
        """BM25 over the memories' index terms (domain.text.index_terms), any query term, with
        the space's own statistics (stores/term_index.py, held by the vector cache)."""
        hits = self._vectors.text_top_k(self, where.space_id, query_terms(text), limit,
                                        where.category, where.include_inactive)
        return self._memories_by_rowid(hits)

    def _vocabulary(self) -> list[str]:
        conn = self._conn()
        marker = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0])
        if self._vocab[0] != marker:
            terms = [r[0] for r in conn.execute("SELECT term FROM memory_vocab")]
            self._vocab = (marker, terms)
        return self._vocab[1]

    def keyword_search(self, where: MemoryFilter, keyword: str, limit: int) -> list[ScoredMemory]:
        terms = words(keyword)
        if not terms:
            return []
        vocabulary = self._vocabulary()
        groups: list[str] = []
        for term in terms:
            edits = max_edits(term)
            variants = {term}
            if edits:
                matches = process.extract(
                    term, vocabulary, scorer=DamerauLevenshtein.distance,
                    score_cutoff=edits, limit=None,
                )
                variants.update(m[0] for m in matches if tolerated(term, m[0]))
            groups.append("(" + " OR ".join(f'"{v}"' for v in sorted(variants)) + ")")
        return self._fts(where, " AND ".join(groups), limit)

    def neighbours(
        self, space_id: str, memory_ids: Sequence[str], hops: int = 2, per_origin: int = 10
    ) -> list[Neighbour]:
        if not memory_ids or hops < 1:
            return []
        # Each step follows an edge out of (source) or into (target) the current node, through
        # the source and target indexes (a first version joined a view of every relation of the
        # space and took 240 ms at 100,000 memories); the hop bound ends the recursion and
        # UNION drops repeated rows, so cycles cannot loop.
        rows = self._conn().execute(
            """
            WITH RECURSIVE
            origins(id) AS (SELECT value FROM json_each(:ids)),
            walk(origin, node, hops, via, direction) AS (
                SELECT o.id, r.target_id, 1, r.type, 'out'
                FROM origins o JOIN relations r ON r.source_id = o.id WHERE r.space_id = :space
                UNION
                SELECT o.id, r.source_id, 1, r.type, 'in'
                FROM origins o JOIN relations r ON r.target_id = o.id WHERE r.space_id = :space
                UNION
                SELECT w.origin, r.target_id, w.hops + 1, r.type, 'out'
                FROM walk w JOIN relations r ON r.source_id = w.node
                WHERE w.hops < :hops AND r.space_id = :space
                UNION
                SELECT w.origin, r.source_id, w.hops + 1, r.type, 'in'
                FROM walk w JOIN relations r ON r.target_id = w.node
                WHERE w.hops < :hops AND r.space_id = :space
            ),
            nearest AS (
                SELECT origin, node, min(hops) AS hops, via, direction FROM walk
                WHERE node != origin GROUP BY origin, node
            ),
            ranked AS (
                SELECT n.*, row_number() OVER (
                    PARTITION BY n.origin ORDER BY n.hops, m.created_at DESC) AS rn
                FROM nearest n JOIN memories m ON m.id = n.node AND m.space_id = :space
            )
            SELECT r.origin, r.hops, r.via, r.direction, """
            + ", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))
            + """
            FROM ranked r JOIN memories m ON m.id = r.node
            WHERE r.rn <= :per ORDER BY r.origin, r.hops, m.created_at DESC
            """,
            {"ids": json.dumps(list(memory_ids)), "space": space_id, "hops": hops,
             "per": per_origin},
        ).fetchall()
        return [
            Neighbour(
                origin_id=r["origin"], memory=memory_from_row(r), hops=int(r["hops"]),
                via=RelationType(r["via"]), direction=r["direction"],
            )
            for r in rows
        ]

    def existing_hashes(self, space_id: str, hashes: Sequence[str]) -> set[str]:
        if not hashes:
            return set()
        rows = self._conn().execute(
            "SELECT content_hash FROM memories WHERE space_id = ? AND active = 1 AND content_hash "
            "IN (SELECT value FROM json_each(?))",
            (space_id, json.dumps(list(hashes))),
        ).fetchall()
        return {r[0] for r in rows}

    # -- usage and idempotency ------------------------------------------------------------

    def record_usage(self, space_id: str, usage: Usage) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO usage_totals (space_id, llm_calls, prompt_tokens, completion_tokens) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (space_id) DO UPDATE SET "
                "llm_calls = llm_calls + excluded.llm_calls, "
                "prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
                "completion_tokens = completion_tokens + excluded.completion_tokens",
                (space_id, usage.llm_calls, usage.prompt_tokens, usage.completion_tokens),
            )

    def usage_totals(self, space_id: str) -> Usage:
        row = self._conn().execute(
            "SELECT llm_calls, prompt_tokens, completion_tokens FROM usage_totals "
            "WHERE space_id = ?", (space_id,),
        ).fetchone()
        return Usage(*row) if row else Usage()

    def claim_idempotency(self, space_id: str, scope: str, key: str, at: datetime) -> str | None:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT result FROM idempotency WHERE space_id = ? AND scope = ? AND key = ?",
                (space_id, scope, key),
            ).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO idempotency (space_id, scope, key, result, created_at) "
                    "VALUES (?, ?, ?, NULL, ?)", (space_id, scope, key, ts(at)),
                )
                return None
        if row[0] is None:
            raise Conflict(
                f"a call with idempotencyKey '{key}' is still running; retry it in a moment"
            )
        return str(row[0])

    def complete_idempotency(self, space_id: str, scope: str, key: str, result: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE idempotency SET result = ? WHERE space_id = ? AND scope = ? AND key = ?",
                (result, space_id, scope, key),
            )

    def release_idempotency(self, space_id: str, scope: str, key: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM idempotency WHERE space_id = ? AND scope = ? AND key = ? "
                "AND result IS NULL", (space_id, scope, key),
            )

    # -- documents --------------------------------------------------------------------------

    def add_handoff(self, handoff: Handoff) -> None:
        with self._tx() as conn:
            handoffs.insert(conn, handoff)

    def latest_handoff(self, space_id: str, agent: str | None = None,
                       topic: str | None = None) -> Handoff | None:
        return handoffs.latest(self._conn(), space_id, agent, topic)

    def list_handoffs(self, space_id: str, limit: int, after: PageAfter | None = None,
                      agent: str | None = None) -> list[Handoff]:
        return handoffs.page(self._conn(), space_id, limit, after, agent)

    def add_document(self, document: Document) -> None:
        with self._tx() as conn:
            documents.insert(conn, document)

    def get_document(self, space_id: str, document_id: str) -> Document | None:
        return documents.get(self._conn(), space_id, document_id)

    def list_documents(
        self, space_id: str, limit: int, after: PageAfter | None = None
    ) -> list[Document]:
        return documents.listing(self._conn(), space_id, limit, after)

    def update_document(
        self,
        space_id: str,
        document_id: str,
        status: DocumentStatus,
        error: str | None = None,
        chunks_total: int | None = None,
        chunks_done: int | None = None,
        uploaded_by_key: str | None = None,
    ) -> Document:
        with self._tx() as conn:
            documents.update(conn, space_id, document_id, status, error, chunks_total, chunks_done,
                             uploaded_by_key)
        updated = self.get_document(space_id, document_id)
        assert updated is not None
        return updated

    def find_document_by_sha256(self, space_id: str, sha256: str) -> Document | None:
        return documents.by_sha256(self._conn(), space_id, sha256)

    def documents_with_status(self, statuses: Sequence[DocumentStatus]) -> list[Document]:
        return documents.with_status(self._conn(), statuses)

    def claim_document(self, space_id: str, document_id: str, owner: str, now: datetime,
                       until: datetime) -> Document | None:
        with self._tx() as conn:
            held = documents.claim(conn, space_id, document_id, owner, ts(now), ts(until))
        return self.get_document(space_id, document_id) if held else None

    def release_document(self, space_id: str, document_id: str, owner: str) -> None:
        with self._tx() as conn:
            documents.release(conn, space_id, document_id, owner)
