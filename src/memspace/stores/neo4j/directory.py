"""Spaces and API keys in the Neo4j store (the SpaceStore and KeyStore roles)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from neo4j import Transaction

from memspace.domain.errors import NotFound
from memspace.domain.models import ApiKey, Space, SpaceStats
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import directory as cypher
from memspace.stores.neo4j.kit import Neo4jKit

# The store's own records, over the connection rather than the role: the store answers them
# itself (store.py), and the start-up backfills (lifecycle_backfill.py, valid_time_backfill.py)
# read and set them before any role is built.


def store_info(db: Neo4jConnection, key: str) -> str | None:
    rows = db.read(cypher.STORE_INFO, key=key)
    return str(rows[0]["value"]) if rows else None


def set_store_info(db: Neo4jConnection, key: str, value: str) -> None:
    db.write(lambda tx: tx.run(cypher.SET_STORE_INFO, key=key, value=value).consume())


def holds_memories(db: Neo4jConnection) -> bool:
    return bool(db.read(cypher.HOLDS_MEMORIES))


class Neo4jDirectory:
    """The SpaceStore and KeyStore role (the store's `directory`) over its kit (neo4j/kit.py)."""

    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db
        self._counts = kit.counts

    def space_stats(self, space_id: str) -> SpaceStats:
        """Counted again only when the space's version moved since last counted: memories and
        relations are read as null while the version is still the one whose counts are kept."""
        known = self._counts.get(space_id)
        row = self._db.read(cypher.SPACE_STATS, space=space_id,
                            known=known.version if known is not None else -1)[0]
        if row["active"] is None and known is not None:  # unchanged since last counted
            return replace(known, documents=row["documents"])
        counted = SpaceStats(row["active"], row["inactive"], row["relations"], row["documents"],
                             int(row["version"]))
        self._counts.keep(space_id, counted)
        return counted

    def create_space(self, space: Space) -> None:
        props = rec.space_props(space)
        self._db.write(lambda tx: tx.run(cypher.CREATE_SPACE, props=props).consume(),
                       conflict=f"a space with slug '{space.slug}' already exists")

    def get_space(self, space_id: str) -> Space | None:
        rows = self._db.read(cypher.GET_SPACE, id=space_id)
        return rec.space_from(rows[0]["space"]) if rows else None

    def get_space_by_slug(self, slug: str) -> Space | None:
        rows = self._db.read(cypher.GET_SPACE_BY_SLUG, slug=slug)
        return rec.space_from(rows[0]["space"]) if rows else None

    def list_spaces(self) -> list[Space]:
        return [rec.space_from(r["space"]) for r in self._db.read(cypher.LIST_SPACES)]

    def create_key(self, key: ApiKey) -> None:
        props = rec.key_props(key)
        grants = [{"space": s, "access": a.value} for s, a in key.grants.items()]

        def work(tx: Transaction) -> None:
            granted = tx.run(cypher.CREATE_KEY, props=props, grants=grants).single(strict=True)
            if granted["granted"] != len(grants):
                raise NotFound("a grant names a space that does not exist")

        self._db.write(work, f"an API key with id '{key.id}' or the same hash already exists")

    def get_key(self, key_id: str) -> ApiKey | None:
        rows = self._db.read(cypher.GET_KEY, id=key_id)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def get_key_by_hash(self, sha256: str) -> ApiKey | None:
        rows = self._db.read(cypher.GET_KEY_BY_HASH, sha256=sha256)
        return rec.key_from(rows[0]["key"], rows[0]["grants"]) if rows else None

    def list_keys(self) -> list[ApiKey]:
        return [rec.key_from(r["key"], r["grants"]) for r in self._db.read(cypher.LIST_KEYS)]

    def revoke_key(self, key_id: str, at: datetime) -> None:
        def work(tx: Transaction) -> None:
            found = tx.run(cypher.REVOKE_KEY, id=key_id, at=rec.utc(at)).single(strict=True)
            if found["found"] == 0:
                raise NotFound(f"no API key with id '{key_id}'; `memspace key list` shows them")

        self._db.write(work)

    def set_active_space(self, key_id: str, space_id: str | None) -> None:
        self._db.write(lambda tx: tx.run(cypher.SET_ACTIVE_SPACE, id=key_id,
                                         space=space_id).consume())
