"""The guard step every write passes before anything is stored (docs/security.md).

Write services call `ContentGuard.screen` with the text fields of one write, after their own
checks and before any write: under the space's `refuse` policy a credential raises
ContainsSecret (nothing written, the write without it as the example); under `redact` each is
replaced by `[redacted:<kind>]` and a warning (and an audit entry) says which kind and where;
under `allow` the text passes unchanged. Instruction-like text is marked (domain/instructions)
so the caller can flag or quarantine it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memspace.domain.errors import ContainsSecret
from memspace.domain.security import InjectionPolicy, PolicyStore, SecretsPolicy, SpacePolicy
from memspace.services.security.instructions import suspicious_reason
from memspace.services.security.secrets import SecretFinding, SecretScanner, redact
from memspace.services.shared import AuditLog

# A policy changed by another process (the CLI) is seen by a server within this long; one
# changed in this process at once.
POLICY_TTL_S = 2.0


@dataclass
class Screened:
    """The fields as they may be stored, and what was done to them (for the caller's answer)."""

    fields: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    policy: SpacePolicy = field(default_factory=SpacePolicy)
    # What was redacted ("kind in field at position; …"), not yet in the audit log: a write
    # that learns its record's id only once stored names it through ContentGuard.stored.
    unrecorded: str = ""
    space_id: str | None = None
    actor: str = ""

    def text(self, name: str) -> str:
        return self.fields[name]

    def optional(self, name: str, given: str | None) -> str | None:
        """A field that may have been left out of the write (`written` drops empty ones)."""
        return self.fields.get(name, given)

    def values(self, **given: str | Sequence[str] | None) -> tuple[Any, ...]:
        """The fields `written(**given)` made, as stored, in the order given."""
        return tuple(self.optional(n, v) if v is None or isinstance(v, str) else self.items(n, v)
                     for n, v in given.items())

    def items(self, name: str, given: Sequence[str] | None) -> list[str] | None:
        """A list field, item by item (`written` names them `name[i]`)."""
        if given is None:
            return None
        return [self.fields.get(f"{name}[{i}]", item) for i, item in enumerate(given)]


def written(**fields: str | Sequence[str] | None) -> dict[str, str]:
    """The fields of one write as the guard reads them: a string by its name, a list's items as
    `name[i]`; absent and empty ones left out. Every field a reader will see goes through the
    guard, not only the text: a credential in a citation, a category or a reason is shown to
    every reader of the space just the same."""
    out: dict[str, str] = {}
    for name, value in fields.items():
        if isinstance(value, str):
            if value:
                out[name] = value
        elif value is not None:
            out.update({f"{name}[{i}]": item for i, item in enumerate(value)})
    return out


def as_arguments(fields: Mapping[str, str]) -> dict[str, Any]:
    """Fields named by `written` back in the shape of a call's arguments (lists whole again)."""
    out: dict[str, Any] = {}
    for name, value in fields.items():
        base, bracket, index = name.partition("[")
        if bracket and index.rstrip("]").isdigit():
            out.setdefault(base, []).append(value)
        else:
            out[name] = value
    return out


class ContentGuard:
    def __init__(self, policies: PolicyStore, audit: AuditLog,
                 scanner: SecretScanner | None = None) -> None:
        self._policies = policies
        # The operator's audit log: what the guard refused or redacted, and the writes whose
        # services screen through it and must leave a trace (forgets, marks, settlements).
        self.audit = audit
        self._scanner = scanner  # built on the first scan: detect-secrets takes ~0.7 s to import
        self._cache: dict[str, tuple[float, SpacePolicy]] = {}
        self._lock = threading.Lock()

    # -- policy -----------------------------------------------------------------------------

    def policy(self, space_id: str) -> SpacePolicy:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(space_id)
        if cached is not None and now - cached[0] < POLICY_TTL_S:
            return cached[1]
        policy = self._policies.get_space_policy(space_id)
        with self._lock:
            self._cache[space_id] = (now, policy)
        return policy

    def forget_policy(self, space_id: str) -> None:
        with self._lock:
            self._cache.pop(space_id, None)

    # -- screening --------------------------------------------------------------------------

    def findings(self, text: str) -> list[SecretFinding]:
        if self._scanner is None:
            with self._lock:
                self._scanner = self._scanner or SecretScanner()
        return self._scanner.scan(text)

    def screen(self, space_id: str | None, fields: Mapping[str, str], actor: str,
               policy: SpacePolicy | None = None, target: str | None = None,
               deferred: bool = False) -> Screened:
        """The fields to store under the space's policy (or `policy`, for a space that does
        not exist yet). A redaction is audited at once as done to `target` (the record
        written: a memory, document, handoff or conflict id), or, `deferred`, left to
        `stored` once the write has given the record its id.

        Raises:
            ContainsSecret: a field holds a credential and the policy is `refuse`.
        """
        policy = policy or self.policy(space_id or "")
        flagged = self._flagged(fields, policy)
        if policy.secrets is SecretsPolicy.ALLOW:
            return Screened(dict(fields), flagged, policy=policy)
        found = {name: self.findings(text) for name, text in fields.items()}
        if not any(found.values()):
            return Screened(dict(fields), flagged, policy=policy)
        cleaned = {name: redact(text, found[name]) for name, text in fields.items()}
        listed = [(name, f.kind, f.where) for name, hits in found.items() for f in hits]
        if policy.secrets is SecretsPolicy.REFUSE:
            self.audit.record(actor, "secret.refused", space_id=space_id,
                               detail="; ".join(f"{k} in {n} at {w}" for n, k, w in listed))
            raise ContainsSecret(listed, as_arguments(cleaned))
        warnings = [f"{kind} in {name} at {where} was stored as [redacted:{kind}] (this "
                    "space redacts secrets)" for name, kind, where in listed]
        done = "; ".join(f"{k} in {n} at {w}" for n, k, w in listed)
        screened = Screened(cleaned, warnings + flagged, policy, done, space_id, actor)
        if not deferred:
            self.stored(screened, target)
        return screened

    def stored(self, screened: Screened, target: str | None) -> None:
        """Audits what `screened` redacted, naming the record it was stored in."""
        if screened.unrecorded:
            self.audit.record(screened.actor, "secret.redacted", space_id=screened.space_id,
                              target=target, detail=screened.unrecorded)
            screened.unrecorded = ""

    @staticmethod
    def _flagged(fields: Mapping[str, str], policy: SpacePolicy) -> list[str]:
        """A warning for each field that reads like instructions to an agent."""
        then = ("quarantined: kept out of search and context, shown in listings"
                if policy.injections is InjectionPolicy.QUARANTINE
                else "stored and shown with a warning wherever it is read")
        return [f"{name} flagged suspicious ({reason}); {then}" for name, text in fields.items()
                if (reason := suspicious_reason(text))]

    def quarantines(self, space_id: str) -> bool:
        """Whether the space keeps suspicious memories out of search and context."""
        return self.policy(space_id).injections is InjectionPolicy.QUARANTINE
