"""The evidence package's services built from the store's roles (read with
startup/container.py, which hands this builder what it names)."""

from __future__ import annotations

from dataclasses import dataclass

from memspace.domain.graph_port import GraphStore
from memspace.domain.ports import Clock
from memspace.services.access import AccessService
from memspace.services.evidence.code_search import CodeSearchService
from memspace.services.evidence.evidence import EvidenceService
from memspace.services.evidence.repos import RepoService
from memspace.services.evidence.verification import VerificationService


@dataclass(frozen=True)
class EvidenceParts:
    evidence: EvidenceService  # a write's citations under the space's policy
    verification: VerificationService
    repos: RepoService
    code: CodeSearchService


def evidence_parts(store: GraphStore, access: AccessService, clock: Clock) -> EvidenceParts:
    verification = VerificationService(store.reads, store.code_index, store.evidence, access, clock)
    return EvidenceParts(
        evidence=EvidenceService(store.code_index, store.evidence, access, clock),
        verification=verification,
        repos=RepoService(store.code_index, store.directory, access, clock, verification),
        code=CodeSearchService(store.code_index, access),
    )
