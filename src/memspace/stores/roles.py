"""The role objects of a backend beside its graph store: one table per backend
(`stores/sqlite/roles.py`, `stores/neo4j/roles.py`) names the class that plays each role, and
each is built over the store's kit (`store.kit`, stores/*/kit.py: its connection, space locks
and vector cache), never over the store's private attributes.
`bootstrap.py` builds the roles a service asks for from the table of the store it was given;
the store names its backend (`GraphStore.backend`), so nothing picks an adapter by type."""

from __future__ import annotations

from collections.abc import Callable

from memspace.domain.graph_port import GraphStore
from memspace.stores.role_table import StoreRoles


def _sqlite() -> StoreRoles:
    from memspace.stores.sqlite.roles import ROLES

    return ROLES


def _neo4j() -> StoreRoles:
    from memspace.stores.neo4j.roles import ROLES

    return ROLES


# A backend's table is imported only when a store of it is used (no Neo4j driver for SQLite).
TABLES: dict[str, Callable[[], StoreRoles]] = {"sqlite": _sqlite, "neo4j": _neo4j}


def roles_of(store: GraphStore) -> StoreRoles:
    """The role table of the store's backend."""
    table = TABLES.get(store.backend)
    if table is None:
        raise TypeError(f"no role table for the {store.backend!r} backend (stores/roles.py)")
    return table()


def kit_of(store: GraphStore) -> object:
    """What the store's roles are built over (its `kit`, stores/*/kit.py)."""
    return store.kit
