"""The security package's services built from the store's roles (read with startup/container.py,
which hands this builder what it names)."""

from __future__ import annotations

from dataclasses import dataclass

from memspace.domain.graph_port import GraphStore
from memspace.services.access import AdminService
from memspace.services.documents import DocumentFiles
from memspace.services.security.guard import ContentGuard
from memspace.services.security.scan_fields import OtherRecords
from memspace.services.security.security import SecurityService
from memspace.services.shared import AuditLog


@dataclass(frozen=True)
class SecurityParts:
    guard: ContentGuard  # the security step of every write path
    security: SecurityService  # the operator's policies, audit log and scans


def security_parts(store: GraphStore, audit: AuditLog, admin: AdminService,
                   files: DocumentFiles) -> SecurityParts:
    """`files`: where documents' text is kept, which a scan reads beside the memories."""
    guard = ContentGuard(store.security, audit)
    return SecurityParts(guard, SecurityService(admin, store.security, guard, audit, store.reads,
                                                OtherRecords.of(store, files)))
