"""GraphStore: a store is its roles, one object per role (domain/ports.py,
domain/space_ports.py, domain/role_ports.py), as attributes: `store.reads.get_memory(...)`,
`store.writes.write(batch)`, `store.conflicts.record(...)`. Each backend's store builds every
one of them in its constructor over one kit it shares with them (stores/*/kit.py). A service
names the roles it calls in its `*Ports` protocol and is handed only those (`roles_for`), or
takes the one role it calls."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from memspace.domain.notes import NoteJobStore
from memspace.domain.oauth import OAuthStore
from memspace.domain.ports import (
    DocumentStore,
    HandoffStore,
    MemoryReadStore,
    MemoryWriteStore,
    RelationStore,
    SearchStore,
)
from memspace.domain.role_ports import (
    CodeIndexStore,
    ConflictStore,
    ConsolidationStore,
    EvidenceStore,
    LifecycleStore,
    SpaceTextStore,
)
from memspace.domain.search_paths import ColdPath, SpaceCache
from memspace.domain.security import SecurityStore
from memspace.domain.space_ports import DirectoryStore, LedgerStore

# The role attributes of every store, in the order the store builds them: the memories' graph,
# then the records of the work around it.
ROLES = ("directory", "reads", "writes", "relations", "search", "documents", "ledger", "handoffs",
         "oauth", "note_jobs", "code_index", "evidence", "security", "marks", "texts", "conflicts",
         "consolidation")


class WithDirectory(Protocol):
    @property
    def directory(self) -> DirectoryStore: ...  # spaces (and their counts) and API keys


class WithReads(Protocol):
    @property
    def reads(self) -> MemoryReadStore: ...


class WithWrites(Protocol):
    @property
    def writes(self) -> MemoryWriteStore: ...


class WithRelations(Protocol):
    @property
    def relations(self) -> RelationStore: ...


class WithSearch(Protocol):
    @property
    def search(self) -> SearchStore: ...


class WithDocuments(Protocol):
    @property
    def documents(self) -> DocumentStore: ...


class WithLedger(Protocol):
    @property
    def ledger(self) -> LedgerStore: ...  # model usage and idempotency keys


class WithHandoffs(Protocol):
    @property
    def handoffs(self) -> HandoffStore: ...


class WithOAuth(Protocol):
    @property
    def oauth(self) -> OAuthStore: ...  # clients, consents and token families (domain/oauth.py)


class WithNoteJobs(Protocol):
    @property
    def note_jobs(self) -> NoteJobStore: ...  # notes saved without waiting for the model


class WithCodeIndex(Protocol):
    @property
    def code_index(self) -> CodeIndexStore: ...  # repositories and the code index


class WithEvidence(Protocol):
    @property
    def evidence(self) -> EvidenceStore: ...  # evidence policies and citations


class WithSecurity(Protocol):
    @property
    def security(self) -> SecurityStore: ...  # space policies and the audit log


class WithMarks(Protocol):
    @property
    def marks(self) -> LifecycleStore: ...  # status changes set by hand


class WithTexts(Protocol):
    @property
    def texts(self) -> SpaceTextStore: ...  # a space's description and instructions


class WithConflicts(Protocol):
    @property
    def conflicts(self) -> ConflictStore: ...  # the conflict queue's records


class WithConsolidation(Protocol):
    @property
    def consolidation(self) -> ConsolidationStore: ...  # the consolidation pass's records


class GraphStore(WithDirectory, WithReads, WithWrites, WithRelations, WithSearch, WithDocuments,
                 WithLedger, WithHandoffs, WithOAuth, WithNoteJobs, WithCodeIndex, WithEvidence,
                 WithSecurity, WithMarks, WithTexts, WithConflicts, WithConsolidation, Protocol):
    """What the adapters (stores/sqlite, stores/neo4j) implement and startup/container.py wires: the role
    objects, the facts about the store as a whole, and its lifecycle. Every memory query is
    scoped to one space. A service's `*Ports` names the roles it calls with the `With*`
    protocols above."""

    backend: str  # its package under stores/: "sqlite", "neo4j"

    @property
    def cache(self) -> SpaceCache: ...  # the spaces held in memory (docs/scaling.md)

    @property
    def cold(self) -> ColdPath: ...  # the search of a space that is not held

    @property
    def kit(self) -> object: ...

    def store_info(self, key: str) -> str | None:
        """A fact about the store as a whole (e.g. "embedding_model"), or None if never set."""

    def set_store_info(self, key: str, value: str) -> None: ...

    def holds_memories(self) -> bool:
        """Does any space of the store hold a memory?"""

    def ping(self) -> None:
        """Raises Unavailable when the store cannot answer."""

    def close(self) -> None: ...


class RoleView:
    """Some of a store's roles and nothing else: what a service is handed."""

    def __init__(self, roles: dict[str, Any]) -> None:
        self.__dict__.update(roles)

    def __repr__(self) -> str:
        return f"RoleView({', '.join(self.__dict__)})"


P = TypeVar("P")


def role_names(ports: type) -> list[str]:
    """The roles a `*Ports` protocol names: its properties, its bases' included."""
    return [name for name in ROLES if isinstance(getattr(ports, name, None), property)]


def roles_for(ports: type, store: P) -> P:
    """The roles of `store` that `ports` (a service's `*Ports` protocol) names, and no other:
    reaching another raises AttributeError. Typed as the store, so that mypy checks at the
    service's constructor that the store plays every role its `*Ports` asks for."""
    names = role_names(ports)
    if not names:
        raise TypeError(f"{ports.__name__} names no role of the store (domain/graph_port.py)")
    view: Any = RoleView({name: getattr(store, name) for name in names})
    return view  # type: ignore[no-any-return]
