"""CodeIndexStore on Neo4j: Repo, CodeFile, CodeChunk and MinedCommit nodes (no edges: each
names its repository by id, as a memory names its space). Statements in cypher/repos.py."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.errors import Conflict
from memspace.stores.neo4j.cypher import repos as cypher
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.schema import SchemaPart, ensure_schema


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _repo(p: dict[str, Any]) -> Repo:
    created = _when(p["createdAt"])
    assert created is not None
    return Repo(p["id"], p["spaceId"], p["name"], p["path"], created, _when(p.get("syncedAt")),
                p.get("head"), int(p.get("generation") or 0))


def _chunk(p: dict[str, Any]) -> CodeChunk:
    return CodeChunk(p["id"], p["spaceId"], p["repoId"], p["path"], p["startLine"], p["endLine"],
                     p.get("symbol"), p["language"], p["body"])


# Repositories and the code index; the evidence role (evidence.py) reads the same nodes.
SCHEMA = SchemaPart(cypher.REPO_SCHEMA, cypher.REPO_LABELS, cypher.REPO_PROPERTY_KEYS)


class Neo4jRepos:
    """Repositories and the code index in the graph's database, through its connection."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._db.retrying(lambda: ensure_schema(self._db.driver, self._db.database, SCHEMA))

    def add_repo(self, repo: Repo) -> None:
        props = {"id": repo.id, "spaceId": repo.space_id, "name": repo.name, "path": repo.path,
                 "createdAt": repo.created_at.isoformat(), "generation": 0}
        taken = f"a repository named '{repo.name}' is already registered; pick another name"
        rows = self._db.write_one(cypher.REPO_ADD, taken, props=props)
        if not rows:
            raise Conflict(taken + " or `memspace repo remove` it first")

    def list_repos(self, space_id: str | None = None) -> list[Repo]:
        rows = (self._db.read(cypher.REPOS_ALL) if space_id is None
                else self._db.read(cypher.REPOS_OF_SPACE, space=space_id))
        return [_repo(r["repo"]) for r in rows]

    def get_repo(self, name: str) -> Repo | None:
        rows = self._db.read(cypher.REPO_BY_NAME, name=name)
        return _repo(rows[0]["repo"]) if rows else None

    def remove_repo(self, repo_id: str) -> None:
        self._db.write(lambda tx: tx.run(cypher.REPO_REMOVE, id=repo_id).consume())

    def file_hashes(self, repo_id: str) -> dict[str, str]:
        return {r["path"]: r["sha256"] for r in self._db.read(cypher.FILE_HASHES, repo=repo_id)}

    def apply_files(self, repo: Repo, files: Sequence[IndexedFile], removed: Sequence[str],
                    at: datetime, head: str | None) -> None:
        paths = [*removed, *(f.path for f in files)]
        file_props = [{"repoId": repo.id, "path": f.path, "sha256": f.sha256,
                       "language": f.language} for f in files]
        chunk_props = [{"id": c.id, "spaceId": repo.space_id, "repoId": repo.id, "path": c.path,
                        "startLine": c.start_line, "endLine": c.end_line, "symbol": c.symbol,
                        "language": c.language, "body": c.body} for f in files for c in f.chunks]

        def work(tx: Any) -> None:
            tx.run(cypher.FILES_DROP, repo=repo.id, paths=paths).consume()
            tx.run(cypher.FILES_ADD, files=file_props).consume()
            tx.run(cypher.CHUNKS_ADD, chunks=chunk_props).consume()
            tx.run(cypher.REPO_SYNCED, id=repo.id, at=at.isoformat(), head=head,
                   bump=1 if paths else 0).consume()

        self._db.write(work)

    def chunks_of(self, space_id: str) -> list[CodeChunk]:
        return [_chunk(r["chunk"]) for r in self._db.read(cypher.CHUNKS_OF_SPACE, space=space_id)]

    def get_chunk(self, space_id: str, chunk_id: str) -> CodeChunk | None:
        rows = self._db.read(cypher.CHUNK_BY_ID, id=chunk_id, space=space_id)
        return _chunk(rows[0]["chunk"]) if rows else None

    def chunk_ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int
                              ) -> list[str]:
        if not prefixes:
            return []
        rows = self._db.read(cypher.CHUNK_IDS_WITH_PREFIX, space=space_id,
                             prefixes=list(dict.fromkeys(prefixes)), limit=limit)
        return [i for r in rows for i in r["ids"]]

    def mined_commits(self, repo_id: str) -> set[str]:
        return {r["sha"] for r in self._db.read(cypher.MINED, repo=repo_id)}

    def mark_mined(self, repo_id: str, shas: Sequence[str]) -> None:
        self._db.write(lambda tx: tx.run(cypher.MARK_MINED, repo=repo_id, shas=list(shas)).consume())
