"""The operator's audit log of administrative actions (docs/security.md): key create/revoke,
grants, OAuth approvals and revocations, exports, policy changes, secret redactions. Appended
by the services that perform them; read by `memspace audit --since`. No API route writes,
changes or deletes an entry."""

from __future__ import annotations

import logging
from datetime import datetime

from memspace.domain.ports import Clock
from memspace.domain.security import AuditEntry, AuditStore
from memspace.services.shared.clock import new_id

log = logging.getLogger(__name__)
MAX_DETAIL = 500


class AuditLog:
    def __init__(self, store: AuditStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def record(self, actor: str, action: str, *, space_id: str | None = None,
               target: str | None = None, detail: str = "") -> None:
        """Append one entry. An action already done is not undone when its entry cannot be
        written: the failure is logged as an error for the operator instead."""
        entry = AuditEntry(new_id(), self._clock.now(), actor, action, space_id, target,
                           detail[:MAX_DETAIL])
        try:
            self._store.record_audit(entry)
        except Exception:
            log.exception("could not append to the audit log: %s %s %s", actor, action, target)

    def since(self, since: datetime, limit: int = 1000) -> list[AuditEntry]:
        return self._store.audit_since(since, limit)
