"""The spaces a caller may use, with access level, size and activity (the space picker's list)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from memspace.domain.models import Access, Space, SpaceStats
from memspace.domain.ports import SpaceStore
from memspace.services.access import AccessService, Principal, SpaceAccess


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


class SpaceService:
    def __init__(self, access: AccessService, store: SpaceStore) -> None:
        self._access = access
        self._store = store

    def activate(self, principal: Principal, slug: str) -> tuple[SpaceAccess, SpaceListing]:
        """Make `slug` the key's active space; the listing as the caller now sees it."""
        chosen = self._access.set_active_space(principal, slug)
        return chosen, self.listing(replace(principal, active_space_id=chosen.space.id))

    def listing(self, principal: Principal) -> SpaceListing:
        """Every space `principal` may see, most recently active first."""
        listed = [
            ListedSpace(item.space, item.access, self._store.space_stats(item.space.id),
                        item.space.id == principal.active_space_id,
                        item.space.id == principal.default_space_id)
            for item in self._access.visible_spaces(principal)
        ]
        listed.sort(key=lambda s: s.space.last_active_at, reverse=True)
        return SpaceListing(tuple(listed))
