"""The spaces a caller may use, with access level, size and activity (the space picker's list)."""

from __future__ import annotations

from typing import Any

from memspace.domain.ports import GraphStore
from memspace.services.access import AccessService, Principal
from memspace.services.views import space_json


def space_listing(access: AccessService, store: GraphStore, principal: Principal) -> list[dict[str, Any]]:
    """Every space `principal` may see, most recently active first."""
    listed = []
    for item in access.visible_spaces(principal):
        stats = store.space_stats(item.space.id)
        listed.append({
            **space_json(item.space),
            "access": item.access.value,
            "activeMemories": stats.active_memories,
            "documents": stats.documents,
            "isActive": item.space.id == principal.active_space_id,
            "isDefault": item.space.id == principal.default_space_id,
        })
    listed.sort(key=lambda s: s["lastActiveAt"] or "", reverse=True)
    return listed
