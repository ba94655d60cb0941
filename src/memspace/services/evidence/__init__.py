"""Evidence on writes and the code it cites (docs/evidence.md).

- `EvidenceService` checks a write's citations under the space's policy (`CheckedEvidence`);
- `RepoService` registers repositories and syncs their code index (`SyncResult`);
- `VerificationService` checks that cited code still says what it said (`VerifyReport`);
  `broken_notes` lists the notes whose code moved or broke (`BrokenNote`) for the briefing;
- `CodeSearchService`: search over the code index (`CodeSearchResult`, `ChunkView`).
- `evidence_parts` builds the services above from the store's roles (start-up calls it).
"""

from memspace.services.evidence.code_search import ChunkView, CodeSearchResult, CodeSearchService
from memspace.services.evidence.evidence import CheckedEvidence, EvidenceService
from memspace.services.evidence.parts import EvidenceParts, evidence_parts
from memspace.services.evidence.repos import RepoService, SyncResult
from memspace.services.evidence.verification import (
    BrokenNote,
    BrokenNotes,
    VerificationService,
    VerifyReport,
    broken_notes,
)

__all__ = [
    "BrokenNote",
    "BrokenNotes",
    "CheckedEvidence",
    "ChunkView",
    "CodeSearchResult",
    "CodeSearchService",
    "EvidenceParts",
    "EvidenceService",
    "RepoService",
    "SyncResult",
    "VerificationService",
    "VerifyReport",
    "broken_notes",
    "evidence_parts",
]
