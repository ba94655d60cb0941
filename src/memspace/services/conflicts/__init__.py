"""The conflict queue (docs/conflicts.md): list a space's open conflicts and settle one.

- `ConflictService` over `ConflictPorts`: answers `ConflictPage` and `Resolution`;
- `proposal_writer`: how a settled refused write is written, through `MemoryService`.
- `conflict_service` builds `ConflictService` from the store's roles (start-up calls it).
"""

from memspace.services.conflicts.conflicts import (
    ConflictPage,
    ConflictPorts,
    ConflictService,
    Resolution,
    proposal_writer,
)
from memspace.services.conflicts.parts import conflict_service

__all__ = [
    "ConflictPage",
    "ConflictPorts",
    "ConflictService",
    "Resolution",
    "conflict_service",
    "proposal_writer",
]
