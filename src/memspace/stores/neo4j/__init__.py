"""GraphStore on Neo4j 5.26 (DESIGN §8): `MEMSPACE_STORE=neo4j`."""

from memspace.stores.neo4j.store import Neo4jStore

__all__ = ["Neo4jStore"]
