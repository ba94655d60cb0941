"""The console's session service, built over the running store for the server and the CLI."""

from __future__ import annotations

from memspace.bootstrap import Container
from memspace.services.access import ConsoleSessions
from memspace.services.shared import AuditLog, SystemClock
from memspace.stores.roles import kit_of, roles_of


def console_sessions(app: Container) -> ConsoleSessions:
    """Sessions kept in the store's OAuth tables, audited like OAuth sign-ins."""
    roles, kit = roles_of(app.store), kit_of(app.store)
    clock = SystemClock()
    return ConsoleSessions(roles.oauth(kit), app.access, app.admin, clock,
                           AuditLog(roles.security(kit), clock))
