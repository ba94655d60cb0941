"""What a backend's role table names (stores/roles.py finds the table of a store): the class,
or builder, of each role beside the graph store, called with the store's kit (what the store
shares with its roles: the connection, space locks, vector cache; `stores/*/kit.py`); the
cache, which loads spaces through the store's `search` role, with the store itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memspace.domain.notes import NoteJobStore
from memspace.domain.oauth import OAuthStore
from memspace.domain.ports import ColdPath, SpaceCache
from memspace.domain.role_ports import (
    CodeIndexStore,
    ConflictStore,
    EvidenceStore,
    LifecycleStore,
    SpaceTextStore,
)
from memspace.domain.security import SecurityStore


@dataclass(frozen=True)
class StoreRoles:
    """Each role's class (or builder), called with the backend's kit (`store.kit`)."""

    oauth: Callable[[Any], OAuthStore]  # OAuth records (domain/oauth.py)
    note_jobs: Callable[[Any], NoteJobStore]  # notes saved without waiting
    code_index: Callable[[Any], CodeIndexStore]  # repositories and the code index
    evidence: Callable[[Any], EvidenceStore]  # evidence policies and citations
    security: Callable[[Any], SecurityStore]  # space policies and the audit log
    marks: Callable[[Any], LifecycleStore]  # status changes set by hand
    texts: Callable[[Any], SpaceTextStore]  # a space's description and instructions
    conflicts: Callable[[Any], ConflictStore]  # the conflict queue's records (docs/conflicts.md)
    cold: Callable[[Any], ColdPath]  # search of a space not held in memory (docs/scaling.md)
    # The store's in-process cache of vectors and terms (docs/scaling.md) under a byte budget,
    # called with the store (it reads a space's vectors through `store.search`) and the budget.
    cache: Callable[[Any, int], SpaceCache]
