"""Evidence on writes and the code it cites (docs/evidence.md).

- `EvidenceService` checks a write's citations under the space's policy (`CheckedEvidence`);
- `RepoService` registers repositories and syncs their code index (`SyncResult`);
- `VerificationService` checks that cited code still says what it said (`VerifyReport`);
  `broken_notes` lists the notes whose code moved or broke (`BrokenNote`) for the briefing;
- `CodeSearchService`: search over the code index (`CodeSearchResult`, `ChunkView`).
"""

from memspace.services.evidence.code_search import ChunkView, CodeSearchResult, CodeSearchService
from memspace.services.evidence.evidence import CheckedEvidence, EvidenceService
from memspace.services.evidence.repos import RepoService, SyncResult
from memspace.services.evidence.verification import (
    BrokenNote,
    BrokenNotes,
    VerificationService,
    VerifyReport,
    broken_notes,
)

__all__ = [
    "BrokenNote", "BrokenNotes", "CheckedEvidence", "ChunkView", "CodeSearchResult",
    "CodeSearchService", "EvidenceService", "RepoService", "SyncResult",
    "VerificationService", "VerifyReport", "broken_notes",
]
