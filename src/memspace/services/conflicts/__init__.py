"""The conflict queue (docs/conflicts.md): list a space's open conflicts and settle one.

- `ConflictService` over `ConflictPorts`: answers `ConflictPage` and `Resolution`;
- `proposal_writer`: how a settled refused write is written, through `MemoryService`.
"""

from memspace.services.conflicts.conflicts import (
    ConflictPage,
    ConflictPorts,
    ConflictService,
    Resolution,
    proposal_writer,
)

__all__ = [
    "ConflictPage", "ConflictPorts", "ConflictService", "Resolution", "proposal_writer",
]
