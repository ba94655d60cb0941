"""The consolidation pass built from the store's roles (read with startup/container.py,
which hands this builder what it names)."""

from __future__ import annotations

from collections.abc import Callable

from memspace.domain.embedder import Embedder
from memspace.domain.extraction import FactComparer, FactExtractor
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.notes import NoteJobStore
from memspace.domain.ports import Clock
from memspace.services.consolidation.consolidation import ConsolidationService
from memspace.services.consolidation.pass_types import ConsolidationPorts, PassParts, PassReport
from memspace.services.consolidation.schedule import ModelTurns, PassComparer, PassModel
from memspace.services.memories import ConflictRecorder, NoteExtraction, NotePorts


def consolidation_service(store: GraphStore, embedder: Embedder, clock: Clock, *,
                          extractor: FactExtractor | None, comparer: FactComparer | None,
                          turns: ModelTurns, note_jobs: NoteJobStore | None,
                          recorder: ConflictRecorder, max_calls: int,
                          spent: Callable[[PassReport], None] | None) -> ConsolidationService:
    """With a model (`extractor`, `comparer` its second look), a pass's calls wait for the
    requests' own (`turns`), and it extracts the memories saved flat by the notes' rules
    (`note_jobs`, `recorder`: what a write leaves for the conflict queue); `max_calls` is a
    pass's budget of model calls, `spent` where each pass's report is counted."""
    model = PassModel(extractor, turns) if extractor is not None else None
    notes = (NoteExtraction(roles_for(NotePorts, store), note_jobs, embedder, model, clock, recorder)
             if note_jobs is not None and model is not None else None)
    parts = PassParts(roles_for(ConsolidationPorts, store), embedder, clock, model,
                      notes.extract_saved if notes is not None else None,
                      PassComparer(comparer, turns) if comparer is not None else None, max_calls)
    return ConsolidationService(parts, spent)
