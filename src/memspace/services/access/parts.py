"""The access package's services built from the store's roles: what each one depends on is
read here, and start-up (startup/container.py) only hands these builders what they name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memspace.domain.graph_port import GraphStore, roles_for
from memspace.domain.ports import Clock
from memspace.services.access.access import AccessService
from memspace.services.access.admin import AdminService
from memspace.services.access.oauth import OAuthService
from memspace.services.access.spaces import SpacePorts, SpaceService
from memspace.services.access.uploads import UploadTickets
from memspace.services.shared import AuditLog


@dataclass(frozen=True)
class AccessParts:
    access: AccessService  # who is calling and which space a call acts on: every service asks it
    admin: AdminService
    oauth: OAuthService
    uploads: UploadTickets


def access_parts(store: GraphStore, clock: Clock, audit: AuditLog,
                 upload_secret: bytes | None) -> AccessParts:
    """`audit`: the operator's log, where administration and OAuth record what they do;
    `upload_secret`: the key upload tickets are signed with (None: one picked per process)."""
    access = AccessService(store.directory, clock)
    admin = AdminService(store.directory, clock, audit, store.texts)
    return AccessParts(
        access=access,
        admin=admin,
        oauth=OAuthService(store.oauth, access, admin, clock, audit),
        uploads=UploadTickets(store.directory, access, clock, upload_secret),
    )


def space_service(store: GraphStore, access: AccessService,
                  open_conflicts: Callable[[str], int]) -> SpaceService:
    """The spaces a caller may use. Built apart from `access_parts`, once the conflict queue
    is (whoAmI counts a space's open conflicts), which itself needs `AccessService` first."""
    return SpaceService(access, roles_for(SpacePorts, store), open_conflicts)
