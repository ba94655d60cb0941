"""The console's session service, built over the running store for the server and the CLI."""

from __future__ import annotations

from memspace.services.access import ConsoleSessions
from memspace.services.shared import AuditLog, SystemClock
from memspace.startup.container import Container


def console_sessions(app: Container) -> ConsoleSessions:
    """Sessions kept in the store's OAuth tables, audited like OAuth sign-ins."""
    clock = SystemClock()
    return ConsoleSessions(app.store.oauth, app.access, app.admin, clock,
                           AuditLog(app.store.security, clock))
