"""The space profile: what an agent should know about a space before it starts."""

from __future__ import annotations

from typing import Any

from memspace.domain.models import MemoryFilter, Space
from memspace.domain.ports import GraphStore
from memspace.services.views import memory_json, relation_json, space_json

PROFILE_RECENT = 8
OPEN_CONFLICTS = 10


class ProfileService:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def profile(self, space: Space, recent: int = PROFILE_RECENT) -> dict[str, Any]:
        stats = self._store.space_stats(space.id)
        latest = self._store.list_memories(MemoryFilter(space.id), recent)
        conflicts = self._store.open_conflicts(space.id, OPEN_CONFLICTS)
        return {
            **space_json(space),
            "counts": {
                "activeMemories": stats.active_memories,
                "inactiveMemories": stats.inactive_memories,
                "relations": stats.relations,
                "documents": stats.documents,
            },
            "openConflicts": [
                {**relation_json(r), "hint": "both are active: correct one or forget the other"}
                for r in conflicts
            ],
            "recentMemories": [
                {k: v for k, v in memory_json(m).items() if k in ("id", "content", "category", "createdAt")}
                for m in latest
            ],
        }
