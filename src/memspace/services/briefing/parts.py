"""The briefing package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memspace.domain.embedder import Embedder
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.briefing.briefing import BriefingPorts, BriefingService
from memspace.services.briefing.graph import GraphService, GraphViewPorts
from memspace.services.briefing.handoffs import HandoffService
from memspace.services.evidence import EvidenceService, broken_notes
from memspace.services.memories import ColdNeighbours
from memspace.services.security import ContentGuard
from memspace.services.shared import NoteJobs


@dataclass(frozen=True)
class BriefingParts:
    briefings: BriefingService  # get_context
    graphs: GraphService
    handoffs: HandoffService


def briefing_parts(store: GraphStore, embedder: Embedder, access: AccessService, clock: Clock, *,
                   count_tokens: Callable[[str], int], guard: ContentGuard,
                   evidence: EvidenceService, open_conflicts: Callable[[str], int],
                   cold: ColdNeighbours | None, note_states: NoteJobs | None) -> BriefingParts:
    """`count_tokens`: how a briefing is packed into its budget; `guard`: the write guard (a
    handoff passes it; a quarantining space's suspicious memories stay out of a briefing);
    `evidence`: a handoff's citations; `open_conflicts`: the count a briefing shows;
    `note_states`: how notes saved without waiting stood, for reads at knownAt."""
    return BriefingParts(
        briefings=BriefingService(
            roles_for(BriefingPorts, store), embedder, access, clock, count_tokens,
            quarantines=guard.quarantines, marks=store.marks, cold=cold,
            broken=broken_notes(store.evidence), open_conflicts=open_conflicts, notes=note_states),
        graphs=GraphService(roles_for(GraphViewPorts, store), access, clock, store.marks,
                            note_states),
        handoffs=HandoffService(store.handoffs, access, clock, evidence, guard),
    )
