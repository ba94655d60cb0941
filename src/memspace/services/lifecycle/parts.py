"""The lifecycle package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.lifecycle.changes import ChangeFeed
from memspace.services.lifecycle.lifecycle import LifecyclePorts, LifecycleService
from memspace.services.security import ContentGuard


@dataclass(frozen=True)
class LifecycleParts:
    lifecycle: LifecycleService  # a status set by hand
    changes: ChangeFeed  # what changed in a space since a time or a cursor


def lifecycle_parts(store: GraphStore, access: AccessService, clock: Clock, guard: ContentGuard,
                    count_tokens: Callable[[str], int]) -> LifecycleParts:
    """`count_tokens`: how the change feed measures what it returns against its budget."""
    return LifecycleParts(
        lifecycle=LifecycleService(roles_for(LifecyclePorts, store), store.marks, access, clock,
                                   guard),
        changes=ChangeFeed(store.reads, store.marks, access, count_tokens),
    )
