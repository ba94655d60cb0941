"""What the statements of several roles share: the relation types, a memory's projection
and the condition that scopes memories to a filter."""

from __future__ import annotations

from memspace.domain.models import MemoryFilter

EDGE_TYPES = "UPDATES|EXTENDS|DERIVES"


def memory_fields(var: str) -> str:
    """A map projection of a memory without its embedding (no read path needs it back)."""
    return (
        f"{var} {{.id, .spaceId, .content, .category, .active, .createdAt, .createdBy, "
        ".contentHash, .documentId, .origin, .invalidatedAt, .invalidatedBy, .forgetReason, "
        ".forgottenBy, .version, .speaker, .observedAt, .context, .follows}"
    )


def memory_filter(where: MemoryFilter, var: str = "m") -> tuple[str, dict[str, object]]:
    """The WHERE condition (and its parameters) that scopes memories to a filter."""
    condition = f"{var}.spaceId = $space"
    params: dict[str, object] = {"space": where.space_id}
    if not where.include_inactive:
        condition += f" AND {var}.active = true"
    if where.category is not None:
        condition += f" AND {var}.category = $category"
        params["category"] = where.category
    return condition, params
