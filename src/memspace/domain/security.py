"""Per-space security policy and the operator's audit log (docs/security.md).

A space's policy says what a write holding a credential does (`refuse` it, store it with the
credential replaced by `[redacted:<kind>]`, or `allow` it) and what a write that reads like
instructions aimed at an agent does (`flag` it and store it, or `quarantine` it: stored and
flagged, but left out of search and context). The audit log records administrative actions;
nothing in the API can change or delete an entry.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memspace.domain.evidence import Citation


class SecretsPolicy(enum.StrEnum):
    REFUSE = "refuse"
    REDACT = "redact"
    ALLOW = "allow"


class InjectionPolicy(enum.StrEnum):
    FLAG = "flag"
    QUARANTINE = "quarantine"


@dataclass(frozen=True)
class SpacePolicy:
    secrets: SecretsPolicy = SecretsPolicy.REFUSE
    injections: InjectionPolicy = InjectionPolicy.FLAG


@dataclass(frozen=True)
class AuditEntry:
    """One administrative action: who, what, on which space (if any) and target, and a detail
    line that never holds a secret (kinds and ids only)."""

    id: str
    at: datetime
    actor: str
    action: str
    space_id: str | None
    target: str | None
    detail: str


class PolicyStore(Protocol):
    """Each space's SpacePolicy; a space never set has the defaults."""

    def get_space_policy(self, space_id: str) -> SpacePolicy: ...

    def set_space_policy(self, space_id: str, policy: SpacePolicy) -> None: ...


class AuditStore(Protocol):
    """Append-only: entries are added and read, never changed."""

    def record_audit(self, entry: AuditEntry) -> None: ...

    def audit_since(self, since: datetime, limit: int) -> list[AuditEntry]:
        """Entries at or after `since`, oldest first, at most `limit`."""
        ...


@dataclass(frozen=True)
class BesideText:
    """A memory's fields beside its text that a reader is shown, as a scrub rewrites them."""

    category: str
    speaker: str | None
    forget_reason: str | None
    evidence: tuple[Citation, ...]


class ScrubStore(Protocol):
    """Rewrites a stored memory's text in place (`memspace scan --redact`): its content, the
    context it is read with (the turn before it), its content hash and index terms, and with
    `beside` its category, speaker, forget reason and citations, keeping its id, version, edges
    and history."""

    def scrub_memory(self, space_id: str, memory_id: str, content: str,
                     context: str | None, beside: BesideText | None = None) -> None: ...


class SecurityStore(PolicyStore, AuditStore, ScrubStore, Protocol):
    """Both roles, as each store's one implementation (stores/*/security.py) provides them."""
