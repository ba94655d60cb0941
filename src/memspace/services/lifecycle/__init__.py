"""Where a memory stands and what changed in a space (docs/lifecycle.md).

- `LifecycleService` sets a status by hand over `LifecyclePorts` (`Marked`, `Version`);
  `statuses_of`, `types_of` and `keeps` are the filters reads apply;
- `ChangeFeed`: what changed since a time or a cursor (`ChangesPage`).
- `lifecycle_parts` builds the services above from the store's roles (start-up calls it).
"""

from memspace.services.lifecycle.changes import ChangeFeed, ChangesPage, MemoryChange
from memspace.services.lifecycle.lifecycle import (
    LifecyclePorts,
    LifecycleService,
    Marked,
    Version,
    keeps,
    statuses_of,
    types_of,
)
from memspace.services.lifecycle.parts import LifecycleParts, lifecycle_parts

__all__ = [
    "ChangeFeed",
    "ChangesPage",
    "LifecycleParts",
    "LifecyclePorts",
    "LifecycleService",
    "Marked",
    "MemoryChange",
    "Version",
    "keeps",
    "lifecycle_parts",
    "statuses_of",
    "types_of",
]
