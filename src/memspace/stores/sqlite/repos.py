"""CodeIndexStore on the embedded SQLite file (tables from migration 14), over the graph's connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.errors import Conflict
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import ids_with_prefix, parse_ts, req_ts, ts

_CHUNK = "id, space_id, repo_id, path, start_line, end_line, symbol, language, body"


def _repo(row: sqlite3.Row) -> Repo:
    return Repo(row["id"], row["space_id"], row["name"], row["path"], req_ts(row["created_at"]),
                parse_ts(row["synced_at"]), row["head"], row["generation"])


def _chunk(row: sqlite3.Row) -> CodeChunk:
    return CodeChunk(row["id"], row["space_id"], row["repo_id"], row["path"], row["start_line"],
                     row["end_line"], row["symbol"], row["language"], row["body"])


class SqliteRepos:
    """Repositories and the code index in the same SQLite file as the graph."""

    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def add_repo(self, repo: Repo) -> None:
        with self._db.tx() as conn:
            taken = conn.execute("SELECT 1 FROM repos WHERE name = ?", (repo.name,)).fetchone()
            if taken:
                raise Conflict(f"a repository named '{repo.name}' is already registered; pick "
                               "another name or `memspace repo remove` it first")
            conn.execute(
                "INSERT INTO repos (id, space_id, name, path, created_at) VALUES (?, ?, ?, ?, ?)",
                (repo.id, repo.space_id, repo.name, repo.path, ts(repo.created_at)))

    def list_repos(self, space_id: str | None = None) -> list[Repo]:
        if space_id is None:
            rows = self._db.conn().execute("SELECT * FROM repos ORDER BY name").fetchall()
        else:
            rows = self._db.conn().execute(
                "SELECT * FROM repos WHERE space_id = ? ORDER BY name", (space_id,)).fetchall()
        return [_repo(r) for r in rows]

    def get_repo(self, name: str) -> Repo | None:
        row = self._db.conn().execute("SELECT * FROM repos WHERE name = ?", (name,)).fetchone()
        return _repo(row) if row else None

    def remove_repo(self, repo_id: str) -> None:
        with self._db.tx() as conn:
            for table in ("code_chunks", "code_files", "mined_commits"):
                conn.execute(f"DELETE FROM {table} WHERE repo_id = ?", (repo_id,))
            conn.execute("DELETE FROM repos WHERE id = ?", (repo_id,))

    def file_hashes(self, repo_id: str) -> dict[str, str]:
        rows = self._db.conn().execute(
            "SELECT path, sha256 FROM code_files WHERE repo_id = ?", (repo_id,)).fetchall()
        return {r[0]: r[1] for r in rows}

    def apply_files(self, repo: Repo, files: Sequence[IndexedFile], removed: Sequence[str],
                    at: datetime, head: str | None) -> None:
        gone = [(repo.id, p) for p in [*removed, *(f.path for f in files)]]
        with self._db.tx() as conn:
            conn.executemany("DELETE FROM code_chunks WHERE repo_id = ? AND path = ?", gone)
            conn.executemany("DELETE FROM code_files WHERE repo_id = ? AND path = ?", gone)
            conn.executemany(
                "INSERT INTO code_files (repo_id, path, sha256, language) VALUES (?, ?, ?, ?)",
                [(repo.id, f.path, f.sha256, f.language) for f in files])
            conn.executemany(
                f"INSERT INTO code_chunks ({_CHUNK}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(c.id, repo.space_id, repo.id, c.path, c.start_line, c.end_line, c.symbol,
                  c.language, c.body) for f in files for c in f.chunks])
            bump = 1 if files or removed else 0
            conn.execute("UPDATE repos SET synced_at = ?, head = ?, generation = generation + ? "
                         "WHERE id = ?", (ts(at), head, bump, repo.id))

    def chunks_of(self, space_id: str) -> list[CodeChunk]:
        rows = self._db.conn().execute(
            f"SELECT {_CHUNK} FROM code_chunks WHERE space_id = ? ORDER BY repo_id, path, "
            "start_line", (space_id,)).fetchall()
        return [_chunk(r) for r in rows]

    def get_chunk(self, space_id: str, chunk_id: str) -> CodeChunk | None:
        row = self._db.conn().execute(
            f"SELECT {_CHUNK} FROM code_chunks WHERE id = ? AND space_id = ?",
            (chunk_id, space_id)).fetchone()
        return _chunk(row) if row else None

    def chunk_ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int
                              ) -> list[str]:
        return ids_with_prefix(self._db.conn(), "code_chunks", space_id, prefixes, limit)

    def mined_commits(self, repo_id: str) -> set[str]:
        rows = self._db.conn().execute(
            "SELECT sha FROM mined_commits WHERE repo_id = ?", (repo_id,)).fetchall()
        return {r[0] for r in rows}

    def mark_mined(self, repo_id: str, shas: Sequence[str]) -> None:
        with self._db.tx() as conn:
            conn.executemany("INSERT OR IGNORE INTO mined_commits (repo_id, sha) VALUES (?, ?)",
                             [(repo_id, s) for s in shas])
