"""The error tree every layer speaks.

    MemspaceError
    ├── InvalidInput     the caller sent something unusable (empty, too large, bad cursor)
    │   ├── TooLarge            an upload over the size limit (nothing was stored)
    │   ├── UnreadableDocument  a stored upload whose text cannot be extracted (the document fails)
    │   ├── MissingEvidence     a write without evidence to a space whose policy requires it
    │   ├── UnresolvableAnchor  a citation that does not resolve in a registered repository
    │   ├── AmbiguousId         a short id that starts more than one id of its kind in the space
    │   └── ContainsSecret      the write holds a credential and the space refuses those
    ├── Unauthenticated  no key, a malformed key, an unknown or revoked key
    ├── RateLimited      this key or OAuth client sent more than MEMSPACE_RATE_LIMIT a minute
    ├── NotFound         no such thing *visible to this caller* (spaces, memories, documents)
    │   └── SpaceNotFound     a space slug this caller cannot use (missing or not granted)
    ├── Forbidden        visible, but the grant does not allow this (a read key writing)
    ├── Conflict         the state moved under the caller (already superseded, slug taken)
    │   ├── DuplicateContent  an active memory of the space already says exactly this
    │   └── StaleVersion      the caller's expectedVersion is not the fact's current version
    └── Unavailable      a backing service (store, model) cannot answer right now
        └── ExtractionFailed  the LLM failed or answered nonsense (the add falls back to flat)

Adapters translate driver and library exceptions into these at their edge; the HTTP and MCP
surfaces turn them into status codes and `isError` results. Every message says what to do next.
"""

from __future__ import annotations

from typing import Any

from memspace.domain.models import Usage


class MemspaceError(Exception):
    """Base of every error memspace raises on purpose."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(MemspaceError):
    """The request cannot be served as sent; the message says what to change."""

    code = "invalid_input"


class TooLarge(InvalidInput):
    """An upload exceeds MEMSPACE_MAX_UPLOAD_BYTES; it is refused before anything is stored."""

    code = "too_large"


class UnreadableDocument(InvalidInput):
    """The file was stored, but no text can be extracted from it (encrypted, damaged, scanned,
    binary, wrong encoding, over a limit); the document ends `failed` with this message."""

    code = "unreadable_document"


class MissingEvidence(InvalidInput):
    """The space's evidence policy is `required` and the write carries no citation."""

    code = "missing_evidence"


class UnresolvableAnchor(InvalidInput):
    """A citation names a file, line or commit that no registered repository of the space holds
    (or a path that would leave the repository)."""

    code = "unresolvable_anchor"


class AmbiguousId(InvalidInput):
    """A short id (a prefix of at least 8 characters) that starts more than one id of its kind
    in the caller's space; `candidates` are those ids, for the caller to pick from."""

    code = "ambiguous_id"

    def __init__(self, kind: str, given: str, argument: str, candidates: list[str]) -> None:
        listed = ", ".join(candidates)
        super().__init__(
            f"'{given}' starts more than one {kind} id in this space ({listed}): send more of "
            f"the id, or all of it, e.g. {{\"{argument}\": \"{candidates[0]}\"}}")
        self.kind = kind
        self.given = given
        self.argument = argument
        self.candidates = candidates


class ContainsSecret(InvalidInput):
    """The write holds credentials and the space's policy is `refuse`: nothing was written.
    `findings` says which kind and where (never the value); `without` is the same write with
    each credential replaced by `[redacted:<kind>]`, field by field."""

    code = "contains_secret"

    def __init__(self, findings: list[tuple[str, str, str]], without: dict[str, Any]) -> None:
        listed = "; ".join(f"{kind} in {field} at {where}" for field, kind, where in findings)
        super().__init__(
            f"this write holds what looks like a credential ({listed}), and this space refuses "
            "secrets: nothing was written. Send it again without the credential (see `example`: "
            "the same write with it replaced), or ask the operator for `memspace space set "
            "SPACE --secrets redact`")
        self.findings = findings
        self.without = without


class RateLimited(MemspaceError):
    """Over MEMSPACE_RATE_LIMIT requests a minute for this key or OAuth client."""

    code = "rate_limited"

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"too many requests for this key: at most MEMSPACE_RATE_LIMIT a minute; "
                         f"retry after {retry_after_s} s")
        self.retry_after_s = retry_after_s


class Unauthenticated(MemspaceError):
    """No usable API key was presented."""

    code = "unauthenticated"


class NotFound(MemspaceError):
    """The thing does not exist, or this caller may not know that it exists."""

    code = "not_found"


class SpaceNotFound(NotFound):
    """A space slug this caller cannot use, missing or not granted (one answer for both). It
    keeps the slug so a surface can say how to list or make spaces in its own words."""

    def __init__(self, slug: str, message: str) -> None:
        super().__init__(message)
        self.slug = slug


class Forbidden(MemspaceError):
    """The caller can see the thing but its grant does not allow the action."""

    code = "forbidden"


class Conflict(MemspaceError):
    """The action conflicts with the current state (e.g. the memory was already superseded)."""

    code = "conflict"


class DuplicateContent(Conflict):
    """A write would store content (same normalised hash) that an active memory of the space
    already holds. The store checks it inside the write transaction and writes nothing;
    `existing` maps each repeated content hash to the id of the active memory holding it."""

    code = "duplicate"

    def __init__(self, existing: dict[str, str]) -> None:
        ids = ", ".join(f"'{i}'" for i in sorted(set(existing.values())))
        super().__init__(f"an active memory of this space already says exactly this ({ids}); "
                         "nothing was written")
        self.existing = existing


class StaleVersion(Conflict):
    """The caller acted on version `have` of a fact whose current version is `current` (another
    writer corrected or forgot it since the caller read it)."""

    code = "stale_version"

    def __init__(self, memory_id: str, have: int, current: int, head_id: str | None) -> None:
        now = f" (memory '{head_id}')" if head_id and head_id != memory_id else ""
        super().__init__(
            f"memory '{memory_id}': you have v{have}, current is v{current}{now} — reload it "
            "with getMemory or search_memory and reapply your change to the current version")
        self.memory_id = memory_id
        self.have = have
        self.current = current
        self.head_id = head_id


class StaleConflict(Conflict):
    """A resolution quoted a conflict's `version` that moved on: the conflict or one of its
    memories changed since it was listed (docs/conflicts.md). The same code as StaleVersion."""

    code = "stale_version"

    def __init__(self, conflict_id: str, have: str, current: str) -> None:
        super().__init__(
            f"conflict '{conflict_id}' changed since you listed it (you have version {have}, "
            f"current is {current}): list_conflicts again, look at both sides as they are now, "
            "and resolve with the new version")
        self.conflict_id = conflict_id
        self.have = have
        self.current = current


class Unavailable(MemspaceError):
    """A backing service (store, model) did not answer; retrying later may work."""

    code = "unavailable"


class ExtractionFailed(Unavailable):
    """The fact-extraction model failed; `llm_calls` and tokens say what was spent trying."""

    code = "extraction_failed"

    def __init__(self, message: str, llm_calls: int = 0, prompt_tokens: int = 0,
                 completion_tokens: int = 0) -> None:
        super().__init__(message)
        self.llm_calls = llm_calls
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens

    @property
    def usage(self) -> Usage:
        return Usage(self.llm_calls, self.prompt_tokens, self.completion_tokens)
