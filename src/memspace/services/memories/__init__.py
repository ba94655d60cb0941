"""Saving, correcting, forgetting and reading memories (docs/contract.md).

- `MemoryService`, the one service the surfaces call, over `MemoryPorts` and `Limits`; it is
  asked `AddRequest` and answers `AddResult` (with `Clash` and `Similar`), `MemoryDetail` and
  `CorrectionPreview`.
- What it is built with: `ConflictRecorder` (the conflicts an add meets, kept after the
  write), `NoteExtraction` over `NotePorts` (notes saved without waiting, extracted in the
  background) and `ColdNeighbours` (the cold path for spaces not held in memory);
  `memories_parts` builds them and `MemoryService` (with the model and without one) from the
  store's roles (`MemoryParts`; start-up calls it).
- `TurnFeatures`: which earlier turn a memory continues, shared with search's ranking.
"""

from memspace.services.memories.add_types import AddManyResult, AddRequest, AddResult, Clash
from memspace.services.memories.conflict_recorder import ConflictRecorder
from memspace.services.memories.conversation import TurnFeatures
from memspace.services.memories.extraction_jobs import NoteExtraction, NotePorts
from memspace.services.memories.memories import MemoryService
from memspace.services.memories.memory_reads import CorrectionPreview, MemoryDetail
from memspace.services.memories.memory_rules import ColdNeighbours, Limits, MemoryPorts
from memspace.services.memories.parts import MemoryParts, memories_parts
from memspace.services.memories.similar import Similar

__all__ = [
    "AddManyResult",
    "AddRequest",
    "AddResult",
    "Clash",
    "ColdNeighbours",
    "ConflictRecorder",
    "CorrectionPreview",
    "Limits",
    "MemoryDetail",
    "MemoryParts",
    "MemoryPorts",
    "MemoryService",
    "NoteExtraction",
    "NotePorts",
    "Similar",
    "TurnFeatures",
    "memories_parts",
]
