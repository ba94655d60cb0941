"""The space profile: what an agent should know about a space before it starts."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from memspace.domain.graph_port import WithDirectory, WithReads, WithRelations
from memspace.domain.models import Memory, MemoryFilter, Relation, Space, SpaceStats
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


class ProfilePorts(WithDirectory, WithReads, WithRelations, Protocol):
    """The store roles a profile reads."""


class ProfileService:
    """Every search shows the space's profile. Its conflicts and newest memories are read again
    only when the space's version moved (any write to its memories or relations): at 100,000
    memories on Neo4j, reading them took 10 ms of each search (three round trips)."""

    def __init__(self, store: ProfilePorts, access: AccessService) -> None:
        self._store = store
        self._access = access
        # space id -> (version, recent wanted, open conflicts, newest memories)
        self._derived: dict[str, tuple[int, int, tuple[Relation, ...], tuple[Memory, ...]]] = {}
        self._guard = threading.Lock()

    def of(self, principal: Principal, space: str | None = None) -> Profile:
        """The profile of `space` (default: the caller's active or default space)."""
        return self.profile(self._access.resolve(principal, space).space)

    def profile(self, space: Space, recent: int = PROFILE_RECENT) -> Profile:
        stats = self._store.directory.space_stats(space.id)
        with self._guard:
            known = self._derived.get(space.id)
        if known is not None and known[:2] == (stats.version, recent):
            conflicts, newest = known[2], known[3]
        else:
            conflicts = tuple(self._store.relations.open_conflicts(space.id, OPEN_CONFLICTS))
            newest = tuple(self._store.reads.list_memories(MemoryFilter(space.id), recent))
            # Kept under the version read before them: a write in between makes them newer than
            # that version, and the version only grows, so they are never served after it.
            with self._guard:
                self._derived[space.id] = (stats.version, recent, conflicts, newest)
        return Profile(space=space, stats=stats, open_conflicts=conflicts, recent=newest)
