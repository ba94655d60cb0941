"""Export and import built from the store's roles (read with startup/container.py, which
hands this builder what it names)."""

from __future__ import annotations

from memspace.domain.embedder import Embedder
from memspace.domain.graph_port import GraphStore, roles_for
from memspace.services.access import AccessService, AdminService
from memspace.services.documents import DocumentFiles
from memspace.services.portability.portability import PortabilityPorts, PortabilityService
from memspace.services.security import ContentGuard
from memspace.services.shared import AuditLog


def portability_service(store: GraphStore, embedder: Embedder, access: AccessService,
                        admin: AdminService, files: DocumentFiles, guard: ContentGuard,
                        audit: AuditLog) -> PortabilityService:
    """`admin`: creates the space an operator's import targets; `guard` and `audit`: an import passes the
    write guard and is recorded in the operator's log."""
    return PortabilityService(roles_for(PortabilityPorts, store), embedder, access, files, admin,
                              guard, audit, store.conflicts)
