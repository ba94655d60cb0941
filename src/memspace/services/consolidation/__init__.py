"""The consolidation pass (docs/consolidation.md): keeps a space true as it is used. It folds
restatements, retires what a later memory replaced, adds the links a write missed, retires what
expired and hands flat memories to the model, each change a new version or edge with history,
and queues what no rule can settle. Offers the service, what a pass reports, its undo, and the
schedule `memspace serve` runs it on;
`consolidation_service` builds the service from the store's roles (start-up calls it)."""

from memspace.services.consolidation.consolidation import ConsolidationService
from memspace.services.consolidation.parts import consolidation_service
from memspace.services.consolidation.pass_types import (
    ConsolidationPorts,
    ExtractNow,
    PassParts,
    PassReport,
    UndoReport,
)
from memspace.services.consolidation.schedule import (
    ModelTurns,
    PassComparer,
    PassModel,
    RequestModel,
    Schedule,
)

__all__ = [
    "ConsolidationPorts",
    "ConsolidationService",
    "ExtractNow",
    "ModelTurns",
    "PassComparer",
    "PassModel",
    "PassParts",
    "PassReport",
    "RequestModel",
    "Schedule",
    "UndoReport",
    "consolidation_service",
]
