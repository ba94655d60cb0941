"""The spaces a caller may use: the picker's list, who a key is, and a glance at one space for the
views that open on it (each one service call for the surface)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from memspace.domain.graph_port import WithDirectory, WithDocuments, WithLedger, WithReads
from memspace.domain.models import Access, Document, Memory, MemoryFilter, Space, SpaceStats, Usage
from memspace.services.access.access import AccessService, Principal, SpaceAccess


@dataclass(frozen=True)
class ListedSpace:
    space: Space
    access: Access
    stats: SpaceStats
    is_active: bool  # the caller's active space (setActiveSpace)
    is_default: bool  # the key's default space


@dataclass(frozen=True)
class SpaceListing:
    spaces: tuple[ListedSpace, ...]  # most recently active first


@dataclass(frozen=True)
class GrantedSpace:
    space: Space
    access: Access
    usage: Usage  # model calls and tokens spent on this space's extractions
    open_conflicts: int = 0  # the space's conflict queue (docs/conflicts.md)


@dataclass(frozen=True)
class Identity:
    """Who a key is (whoAmI): its spaces with access and model usage, default and active."""

    name: str
    key_id: str | None
    spaces: tuple[GrantedSpace, ...]
    default_space: str | None  # slug
    active_space: str | None  # slug


@dataclass(frozen=True)
class Glance:
    """One space as a view opens on it: the caller's access, its counts, its newest active
    memories and documents (as many as asked for)."""

    space: Space
    access: Access
    stats: SpaceStats
    memories: tuple[Memory, ...]
    documents: tuple[Document, ...]


class SpacePorts(WithDirectory, WithLedger, WithReads, WithDocuments, Protocol):
    """The store roles listing spaces, telling a key who it is and glancing at a space read."""


class SpaceService:
    def __init__(self, access: AccessService, store: SpacePorts,
                 open_conflicts: Callable[[str], int] | None = None) -> None:
        self._access = access
        self._store = store
        self._open_conflicts = open_conflicts or (lambda _space_id: 0)

    def identity(self, principal: Principal) -> Identity:
        visible = self._access.visible_spaces(principal)
        slugs = {v.space.id: v.space.slug for v in visible}
        return Identity(
            name=principal.name,
            key_id=principal.key_id,
            spaces=tuple(GrantedSpace(v.space, v.access, self._store.ledger.usage_totals(v.space.id),
                                      self._open_conflicts(v.space.id))
                         for v in visible),
            default_space=slugs.get(principal.default_space_id or ""),
            active_space=slugs.get(principal.active_space_id or ""),
        )

    def glance(self, principal: Principal, space: str | None = None, memories: int = 0,
               documents: int = 0) -> Glance:
        """The space `space` (default: the caller's active or default one) at a glance."""
        target = self._access.resolve(principal, space)
        sid = target.space.id
        return Glance(
            target.space, target.access, self._store.directory.space_stats(sid),
            tuple(self._store.reads.list_memories(MemoryFilter(sid), memories)) if memories else (),
            tuple(self._store.documents.list_documents(sid, documents)) if documents else (),
        )

    def activate(self, principal: Principal, slug: str) -> tuple[SpaceAccess, SpaceListing]:
        """Make `slug` the key's active space; the listing as the caller now sees it."""
        chosen = self._access.set_active_space(principal, slug)
        return chosen, self.listing(replace(principal, active_space_id=chosen.space.id))

    def listing(self, principal: Principal) -> SpaceListing:
        """Every space `principal` may see, most recently active first."""
        listed = [
            ListedSpace(item.space, item.access, self._store.directory.space_stats(item.space.id),
                        item.space.id == principal.active_space_id,
                        item.space.id == principal.default_space_id)
            for item in self._access.visible_spaces(principal)
        ]
        listed.sort(key=lambda s: s.space.last_active_at, reverse=True)
        return SpaceListing(tuple(listed))
