"""The store roles of spaces, keys and each space's ledger (model usage, idempotency keys): a
store holds them as `store.directory` and `store.ledger` (domain/graph_port.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from memspace.domain.models import ApiKey, Space, SpaceStats, Usage


class SpaceStore(Protocol):
    """Spaces and their counts."""

    def create_space(self, space: Space) -> None:
        """Raises Conflict when the slug is taken."""

    def get_space(self, space_id: str) -> Space | None: ...

    def get_space_by_slug(self, slug: str) -> Space | None: ...

    def list_spaces(self) -> list[Space]: ...

    def space_stats(self, space_id: str) -> SpaceStats: ...


class KeyStore(Protocol):
    """API keys and the space each one works in by default."""

    def create_key(self, key: ApiKey) -> None: ...

    def get_key(self, key_id: str) -> ApiKey | None: ...

    def get_key_by_hash(self, sha256: str) -> ApiKey | None: ...

    def list_keys(self) -> list[ApiKey]: ...

    def revoke_key(self, key_id: str, at: datetime) -> None: ...

    def set_active_space(self, key_id: str, space_id: str | None) -> None: ...


class DirectoryStore(SpaceStore, KeyStore, Protocol):
    """Spaces and keys together: who may reach what (access checks, administration)."""


class LedgerStore(Protocol):
    """What the adds of a space cost the model, and the answers kept for idempotency keys."""

    def record_usage(self, space_id: str, usage: Usage) -> None:
        """Add to the space's running model-usage totals."""

    def usage_totals(self, space_id: str) -> Usage: ...

    def claim_idempotency(self, space_id: str, scope: str, key: str, at: datetime) -> str | None:
        """The stored result of a finished call with this key, or None after claiming it.

        Raises:
            Conflict: a call with the same key is still running.
        """

    def complete_idempotency(self, space_id: str, scope: str, key: str, result: str) -> None: ...

    def release_idempotency(self, space_id: str, scope: str, key: str) -> None:
        """Drop an unfinished claim (the call failed), so a retry runs again."""
