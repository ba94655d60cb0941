"""The SQLite backend's role objects (stores/roles.py), each over the store's kit
(kit.py: what the store shares with them), the cache over the store's search (its VectorSource)."""

from __future__ import annotations

from memspace.stores.role_table import StoreRoles
from memspace.stores.space_cache import CacheRole
from memspace.stores.sqlite.cold import SqliteColdSearch
from memspace.stores.sqlite.conflicts import SqliteConflicts
from memspace.stores.sqlite.evidence import SqliteEvidence
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.lifecycle import SqliteLifecycle
from memspace.stores.sqlite.note_jobs import SqliteNoteJobs
from memspace.stores.sqlite.oauth import SqliteOAuthStore
from memspace.stores.sqlite.repos import SqliteRepos
from memspace.stores.sqlite.security import SqliteSecurity
from memspace.stores.sqlite.space_settings import SqliteSpaceSettings
from memspace.stores.sqlite.store import SqliteStore


def _cold(kit: SqliteKit) -> SqliteColdSearch:
    return SqliteColdSearch(kit.db)


def _cache(store: SqliteStore, budget_bytes: int) -> CacheRole:
    store.vector_cache.budget.budget_bytes = budget_bytes
    return CacheRole(store.vector_cache, store.search)


ROLES = StoreRoles(
    oauth=SqliteOAuthStore,
    note_jobs=SqliteNoteJobs,
    code_index=SqliteRepos,
    evidence=SqliteEvidence,
    security=SqliteSecurity,
    marks=SqliteLifecycle,
    texts=SqliteSpaceSettings,
    conflicts=SqliteConflicts,
    cold=_cold,
    cache=_cache,
)
