"""Spaces and API keys in the embedded store (the SpaceStore and KeyStore roles)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime

from memspace.domain.errors import Conflict, NotFound
from memspace.domain.models import Access, ApiKey, Space, SpaceStats
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import key_from_row, space_from_row, ts


class SqliteDirectory:
    """The SpaceStore and KeyStore role (the store's `directory`) over its kit (sqlite/kit.py)."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db
        self._counts = kit.counts

    def space_stats(self, space_id: str) -> SpaceStats:
        """Memory and relation counts are recounted only when the space's version moved (every
        write bumps it): counting 100,000 rows took 10 ms of each search's profile."""
        conn = self._db.conn()
        now = self.space_version(space_id)
        counted = self._counts.get(space_id)
        if counted is None or counted.version != now:
            active, inactive = conn.execute(
                "SELECT coalesce(sum(active), 0), coalesce(sum(1 - active), 0) FROM memories "
                "WHERE space_id = ?", (space_id,),
            ).fetchone()
            relations = conn.execute(
                "SELECT count(*) FROM relations WHERE space_id = ?", (space_id,)
            ).fetchone()[0]
            counted = SpaceStats(int(active), int(inactive), int(relations),
                                 self._document_count(conn, space_id), version=now)
            self._counts.keep(space_id, counted)
        return replace(counted, documents=self._document_count(conn, space_id))

    def space_version(self, space_id: str) -> int:
        """The space's version: every write of the space bumps it (0 for an unknown space).
        The search's vector cache keys on it too (memory_search.py)."""
        row = self._db.conn().execute(
            "SELECT version FROM spaces WHERE id = ?", (space_id,)).fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _document_count(conn: sqlite3.Connection, space_id: str) -> int:
        return int(conn.execute(
            "SELECT count(*) FROM documents WHERE space_id = ?", (space_id,)).fetchone()[0])

    def create_space(self, space: Space) -> None:
        try:
            with self._db.tx() as conn:
                conn.execute(
                    "INSERT INTO spaces (id, slug, name, description, created_at, last_active_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (space.id, space.slug, space.name, space.description,
                     ts(space.created_at), ts(space.last_active_at)),
                )
        except Conflict as exc:
            raise Conflict(f"a space with slug '{space.slug}' already exists") from exc

    def get_space(self, space_id: str) -> Space | None:
        return self._space("id", space_id)

    def get_space_by_slug(self, slug: str) -> Space | None:
        return self._space("slug", slug)

    def _space(self, column: str, value: str) -> Space | None:
        row = self._db.conn().execute(
            f"SELECT * FROM spaces WHERE {column} = ?", (value,)).fetchone()
        return space_from_row(row) if row else None

    def list_spaces(self) -> list[Space]:
        return [space_from_row(r)
                for r in self._db.conn().execute("SELECT * FROM spaces ORDER BY slug")]

    def create_key(self, key: ApiKey) -> None:
        with self._db.tx() as conn:
            conn.execute(
                "INSERT INTO api_keys (id, name, prefix, sha256, default_space_id, active_space_id,"
                " created_at, revoked_at, toolsets) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (key.id, key.name, key.prefix, key.sha256, key.default_space_id,
                 key.active_space_id, ts(key.created_at),
                 ",".join(key.toolsets) if key.toolsets is not None else None),
            )
            conn.executemany(
                "INSERT INTO key_grants (key_id, space_id, access) VALUES (?, ?, ?)",
                [(key.id, space_id, access.value) for space_id, access in key.grants.items()],
            )

    def get_key(self, key_id: str) -> ApiKey | None:
        return self._key(self._db.conn(), "id", key_id)

    def get_key_by_hash(self, sha256: str) -> ApiKey | None:
        return self._key(self._db.conn(), "sha256", sha256)

    def list_keys(self) -> list[ApiKey]:
        conn = self._db.conn()
        ids = [r[0] for r in conn.execute("SELECT id FROM api_keys ORDER BY created_at")]
        return [k for k in (self._key(conn, "id", i) for i in ids) if k is not None]

    @staticmethod
    def _key(conn: sqlite3.Connection, column: str, value: str) -> ApiKey | None:
        row = conn.execute(f"SELECT * FROM api_keys WHERE {column} = ?", (value,)).fetchone()
        if row is None:
            return None
        grants = conn.execute(
            "SELECT g.access, s.* FROM key_grants g JOIN spaces s ON s.id = g.space_id "
            "WHERE g.key_id = ? ORDER BY s.slug", (row["id"],)
        ).fetchall()
        return key_from_row(row, {g["id"]: Access(g["access"]) for g in grants},
                            tuple(space_from_row(g) for g in grants))

    def revoke_key(self, key_id: str, at: datetime) -> None:
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                (ts(at), key_id),
            )
            if cur.rowcount == 0:
                raise NotFound(f"no API key with id '{key_id}'; `memspace key list` shows them")

    def set_active_space(self, key_id: str, space_id: str | None) -> None:
        with self._db.tx() as conn:
            conn.execute("UPDATE api_keys SET active_space_id = ? WHERE id = ?",
                         (space_id, key_id))
