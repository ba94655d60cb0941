"""GraphStore on Neo4j 5.26 (docs/operations.md): `MEMSPACE_STORE=neo4j`."""

from memspace.stores.neo4j.store import Neo4jStore

__all__ = ["Neo4jStore"]
