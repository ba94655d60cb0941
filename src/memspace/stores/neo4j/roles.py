"""The Neo4j backend's role objects (stores/roles.py), each over the store's kit
(kit.py: what the store shares with them), the cache over the store's search (its VectorSource)."""

from __future__ import annotations

from memspace.stores.neo4j.cold import Neo4jColdSearch
from memspace.stores.neo4j.conflicts import Neo4jConflicts
from memspace.stores.neo4j.evidence import Neo4jEvidence
from memspace.stores.neo4j.kit import Neo4jKit
from memspace.stores.neo4j.lifecycle import Neo4jLifecycle
from memspace.stores.neo4j.note_jobs import Neo4jNoteJobs
from memspace.stores.neo4j.oauth import Neo4jOAuthStore
from memspace.stores.neo4j.repos import Neo4jRepos
from memspace.stores.neo4j.security import Neo4jSecurity
from memspace.stores.neo4j.space_settings import Neo4jSpaceSettings
from memspace.stores.neo4j.store import Neo4jStore
from memspace.stores.role_table import StoreRoles
from memspace.stores.space_cache import CacheRole


def _cold(kit: Neo4jKit) -> Neo4jColdSearch:
    return Neo4jColdSearch(kit.db)


def _cache(store: Neo4jStore, budget_bytes: int) -> CacheRole:
    store.vector_cache.budget.budget_bytes = budget_bytes
    return CacheRole(store.vector_cache, store.search)


ROLES = StoreRoles(
    oauth=Neo4jOAuthStore,
    note_jobs=Neo4jNoteJobs,
    code_index=Neo4jRepos,
    evidence=Neo4jEvidence,
    security=Neo4jSecurity,
    marks=Neo4jLifecycle,
    texts=Neo4jSpaceSettings,
    conflicts=Neo4jConflicts,
    cold=_cold,
    cache=_cache,
)
