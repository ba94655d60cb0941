"""The operator's security commands (docs/security.md): a space's policy (`memspace space set`),
the audit log (`memspace audit`), and scanning what a space already holds (`memspace scan`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypeVar

from memspace.domain.errors import InvalidInput
from memspace.domain.models import Memory, MemoryFilter, Space
from memspace.domain.ports import MemoryReadStore, PageAfter
from memspace.domain.security import (
    AuditEntry,
    InjectionPolicy,
    SecretsPolicy,
    SecurityStore,
    SpacePolicy,
)
from memspace.services.access import OPERATOR, AdminService
from memspace.services.security.guard import ContentGuard
from memspace.services.security.scan_fields import (
    OtherHit,
    OtherRecords,
    found_in,
    memory_fields,
    scrubbed_beside,
)
from memspace.services.security.secrets import redact
from memspace.services.shared import AuditLog

PAGE = 1_000


@dataclass(frozen=True)
class ScanHit:
    """A stored memory holding credentials: (field, kind, where) for each, never the value."""

    memory_id: str
    active: bool
    version: int
    findings: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class ScanReport:
    space: str
    scanned: int
    hits: list[ScanHit]
    redacted: bool
    # Handoffs and documents: how many were read, those holding credentials.
    others_scanned: int = 0
    others: list[OtherHit] = field(default_factory=list)


@dataclass(frozen=True)
class PolicyChange:
    space: Space
    before: SpacePolicy
    after: SpacePolicy


E = TypeVar("E", SecretsPolicy, InjectionPolicy)


def _choice(kind: type[E], value: str, flag: str) -> E:
    try:
        return kind(value.strip().lower())
    except ValueError as exc:
        allowed = "|".join(v.value for v in kind)
        raise InvalidInput(f"{flag} takes {allowed}, not {value!r} "
                           f"(e.g. memspace space set my-team {flag} {next(iter(kind)).value})") from exc


class SecurityService:
    def __init__(self, admin: AdminService, policies: SecurityStore, guard: ContentGuard,
                 audit: AuditLog, memories: MemoryReadStore,
                 others: OtherRecords | None = None) -> None:
        self._others = others  # handoffs and documents (services/security/scan_fields.py)
        self._memories = memories
        self._admin = admin
        self._policies = policies
        self._guard = guard
        self._audit = audit

    def policy(self, slug: str) -> tuple[Space, SpacePolicy]:
        space = self._admin.space(slug)
        return space, self._policies.get_space_policy(space.id)

    def set_policy(self, slug: str, secrets: str | None = None,
                   injections: str | None = None) -> PolicyChange:
        """Raises NotFound for an unknown space, InvalidInput for an unknown value."""
        space, before = self.policy(slug)
        after = before
        if secrets is not None:
            after = replace(after, secrets=_choice(SecretsPolicy, secrets, "--secrets"))
        if injections is not None:
            after = replace(after, injections=_choice(InjectionPolicy, injections, "--injections"))
        if after != before:
            self._policies.set_space_policy(space.id, after)
            self._guard.forget_policy(space.id)
            self._audit.record(OPERATOR, "space.policy", space_id=space.id, target=space.slug,
                               detail=f"secrets {before.secrets} -> {after.secrets}; injections "
                               f"{before.injections} -> {after.injections}")
        return PolicyChange(space, before, after)

    def audit_since(self, since: datetime, limit: int = 1000) -> list[AuditEntry]:
        return self._audit.since(since, limit)

    def scan(self, slug: str, fix: bool = False) -> ScanReport:
        """Every memory of the space (active or not, with the context it is read with) scanned
        for credentials; with `fix`, each one's text rewritten in place with
        `[redacted:<kind>]` (id, version, edges and history kept), one audit entry for all."""
        space = self._admin.space(slug)
        hits: list[ScanHit] = []
        scanned = 0
        for memory in self._all(space.id):
            scanned += 1
            found = {"content": self._guard.findings(memory.content),
                     "context": self._guard.findings(memory.context or "")}
            beside = found_in(memory_fields(memory), self._guard.findings)
            if not any(found.values()) and not beside:
                continue
            hits.append(ScanHit(memory.id, memory.active, memory.version, tuple(
                (name, f.kind, f.where) for name, items in found.items() for f in items) + beside))
            if fix:
                context = redact(memory.context, found["context"]) if memory.context else None
                self._policies.scrub_memory(
                    space.id, memory.id, redact(memory.content, found["content"]), context,
                    scrubbed_beside(memory, self._guard.findings) if beside else None)
        if fix and hits:
            self._audit.record(OPERATOR, "secret.redacted", space_id=space.id, target=slug,
                               detail=f"memspace scan --redact: {len(hits)} memories: " + ", ".join(
                                   f"{h.memory_id} ({'/'.join(sorted({k for _, k, _ in h.findings}))})"
                                   for h in hits))
        others_scanned, others = (self._others.scan(space.id, self._guard.findings, fix)
                                  if self._others is not None else (0, []))
        return ScanReport(space.slug, scanned, hits, fix, others_scanned, others)

    def _all(self, space_id: str) -> Iterator[Memory]:
        after: PageAfter | None = None
        while True:
            page = self._memories.list_memories(MemoryFilter(space_id, include_inactive=True),
                                                PAGE, after)
            yield from page
            if len(page) < PAGE:
                return
            after = PageAfter(page[-1].created_at, page[-1].id)
