"""The space profile: what an agent should know about a space before it starts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from memspace.domain.models import Memory, MemoryFilter, Relation, Space, SpaceStats
from memspace.domain.ports import MemoryReadStore, RelationStore, SpaceStore
from memspace.services.access import AccessService, Principal

PROFILE_RECENT = 8
OPEN_CONFLICTS = 10


@dataclass(frozen=True)
class Profile:
    """A space, its counts, the conflicts nobody resolved yet and its newest memories."""

    space: Space
    stats: SpaceStats
    open_conflicts: tuple[Relation, ...]
    recent: tuple[Memory, ...]


class ProfilePorts(SpaceStore, MemoryReadStore, RelationStore, Protocol):
    """The store roles a profile reads."""


class ProfileService:
    def __init__(self, store: ProfilePorts, access: AccessService) -> None:
        self._store = store
        self._access = access

    def of(self, principal: Principal, space: str | None = None) -> Profile:
        """The profile of `space` (default: the caller's active or default space)."""
        return self.profile(self._access.resolve(principal, space).space)

    def profile(self, space: Space, recent: int = PROFILE_RECENT) -> Profile:
        return Profile(
            space=space,
            stats=self._store.space_stats(space.id),
            open_conflicts=tuple(self._store.open_conflicts(space.id, OPEN_CONFLICTS)),
            recent=tuple(self._store.list_memories(MemoryFilter(space.id), recent)),
        )
