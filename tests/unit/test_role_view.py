"""A service is handed only the roles of the store its `*Ports` names (domain/graph_port.py:
`roles_for`), so what it may call is what it declares (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memspace.domain.graph_port import ROLES, WithReads, role_names, roles_for
from memspace.services.memories.memory_rules import MemoryPorts
from memspace.services.search.search import SearchPorts
from memspace.stores.sqlite import SqliteStore
from tests.unit.conftest import World


def test_a_view_holds_the_roles_its_ports_name_and_no_other(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    try:
        view = roles_for(SearchPorts, store)
        assert role_names(SearchPorts) == ["directory", "reads", "relations", "search", "documents"]
        for name in role_names(SearchPorts):
            assert getattr(view, name) is getattr(store, name)  # the store's own role objects
        for name in ("writes", "ledger", "handoffs"):
            with pytest.raises(AttributeError):
                getattr(view, name)
        with pytest.raises(AttributeError):
            view.close()  # the lifecycle stays with whoever built the store
    finally:
        store.close()


def test_ports_that_name_no_role_are_refused(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db")
    try:
        with pytest.raises(TypeError, match="names no role"):
            roles_for(object, store)
        assert role_names(WithReads) == ["reads"]
        assert set(role_names(MemoryPorts)) < set(ROLES)
    finally:
        store.close()


def test_the_services_of_the_app_are_handed_views_not_the_store(world: World) -> None:
    search_roles = world.app.search._store  # what bootstrap handed it
    assert search_roles is not world.app.store
    assert search_roles.reads is world.app.store.reads
    with pytest.raises(AttributeError):
        search_roles.writes  # noqa: B018 -- a search never writes memories
