"""Who is calling and which space they may touch: the one place access is decided (docs/architecture.md)."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from memspace.domain.errors import (
    Forbidden,
    InvalidInput,
    NotFound,
    SpaceNotFound,
    Unauthenticated,
    Unavailable,
)
from memspace.domain.models import Access, ApiKey, Space
from memspace.domain.ports import Clock
from memspace.domain.space_ports import DirectoryStore

# When the store cannot be reached, a key that authenticated within this window is still
# recognised, so the caller gets the real error (the store is down, from the tool it called)
# instead of an HTTP 503 before MCP. Safe: with the store down, nothing can be read or written.
STALE_AUTH_S = 300.0

# Which of two grants is narrower: a delegated principal never holds more than its key.
_RANK = {Access.READ: 0, Access.READWRITE: 1}

KEY_PATTERN = re.compile(r"^msk_([A-Za-z0-9]{8})_([A-Za-z0-9_-]{32,64})$")


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def generate_key() -> tuple[str, str]:
    """A new raw key and its displayable prefix (`msk_<8 chars>`)."""
    prefix = secrets.token_hex(4)
    return f"msk_{prefix}_{secrets.token_urlsafe(32)}", f"msk_{prefix}"


@dataclass(frozen=True)
class Principal:
    """The identity behind a call: an API key, or the local operator running the CLI."""

    name: str
    key_id: str | None
    grants: dict[str, Access] = field(default_factory=dict)
    default_space_id: str | None = None
    active_space_id: str | None = None
    operator: bool = False
    # The granted spaces as read with the key, by slug; None when they were not read with it
    # (the operator, a principal made for one job), and the store is asked instead.
    spaces: Mapping[str, Space] | None = None
    # How the call arrived, for the memory's provenance: None for a key used directly,
    # "oauth client <id>" for an OAuth token, "view" for an MCP App view a person uses.
    via: str | None = None
    # The MCP toolsets the key asked to be shown (domain/toolsets.py); None: no choice of its own.
    toolsets: tuple[str, ...] | None = None

    @property
    def actor(self) -> str:
        """What `createdBy` records: the key's name, or `cli:<name>` for the operator."""
        return self.name if not self.operator else f"cli:{self.name}"

    @classmethod
    def from_key(cls, key: ApiKey) -> Principal:
        return cls(
            name=key.name, key_id=key.id, grants=dict(key.grants),
            default_space_id=key.default_space_id, active_space_id=key.active_space_id,
            spaces=granted_spaces(key, key.grants), toolsets=key.toolsets,
        )


def granted_spaces(key: ApiKey, grants: Mapping[str, Access]) -> dict[str, Space]:
    """The spaces of `grants` that were read with `key`, by slug."""
    return {s.slug: s for s in key.spaces if s.id in grants}


@dataclass(frozen=True)
class SpaceAccess:
    space: Space
    access: Access


class AccessService:
    """Authenticates keys and resolves the space each call acts on."""

    def __init__(self, store: DirectoryStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._recent: dict[str, tuple[Principal, float]] = {}

    def authenticate(self, raw_key: str | None) -> Principal:
        """Raises Unauthenticated for a missing, malformed, unknown or revoked key."""
        if not raw_key:
            raise Unauthenticated(
                "no API key: send `Authorization: Bearer msk_...` (or `X-Api-Key`); "
                "create one with `memspace key create`"
            )
        if not KEY_PATTERN.match(raw_key.strip()):
            raise Unauthenticated("malformed API key: memspace keys look like msk_xxxxxxxx_...")
        digest = hash_key(raw_key.strip())
        try:
            key = self._store.get_key_by_hash(digest)
        except Unavailable:
            recent = self._recent.get(digest)
            if recent is None or time.monotonic() - recent[1] > STALE_AUTH_S:
                raise
            return recent[0]
        if key is None:
            raise Unauthenticated("unknown API key; ask for a new one (`memspace key create`)")
        if key.revoked_at is not None:
            raise Unauthenticated(
                f"API key {key.prefix} was revoked; ask the space owner for a new key"
            )
        principal = Principal.from_key(key)
        self._recent[digest] = (principal, time.monotonic())
        return principal

    @staticmethod
    def operator(name: str = "operator") -> Principal:
        """The local operator (CLI on the server's machine): every space, read-write."""
        return Principal(name=name, key_id=None, operator=True)

    def _not_found(self, slug: str) -> SpaceNotFound:
        # Same words whether the space is missing or just not granted: no existence leak.
        return SpaceNotFound(
            slug,
            f"space '{slug}' not found, or this key has no access to it; "
            "call listSpaces to see the spaces you can use"
        )

    def access_to(self, principal: Principal, space: Space) -> Access | None:
        if principal.operator:
            return Access.READWRITE
        return principal.grants.get(space.id)

    def _space(self, principal: Principal, slug: str | None = None,
               space_id: str | None = None) -> Space | None:
        """A space by slug or id: among those read with the principal's key, else from the
        store (one read fewer per call for a key)."""
        known = principal.spaces
        if known is not None:
            return known.get(slug) if slug else next(
                (s for s in known.values() if s.id == space_id), None)
        if slug:
            return self._store.get_space_by_slug(slug)
        return self._store.get_space(space_id) if space_id else None

    def resolve(self, principal: Principal, slug: str | None, write: bool = False) -> SpaceAccess:
        """The space a call acts on: `slug`, else the active space, else the default space.

        Raises:
            NotFound: no such space, or none this principal may see (indistinguishable).
            Forbidden: the space is readable but `write` was asked with a read grant.
            InvalidInput-like NotFound: no space given and none active or default.
        """
        space: Space | None
        if slug:
            space = self._space(principal, slug=slug.strip())
            if space is None or self.access_to(principal, space) is None:
                raise self._not_found(slug)
        else:
            space_id = principal.active_space_id or principal.default_space_id
            space = self._space(principal, space_id=space_id) if space_id else None
            if space is None or self.access_to(principal, space) is None:
                raise NotFound(
                    "no space given and this key has no active or default space; pass `space` "
                    "(listSpaces shows yours) or call setActiveSpace first"
                )
        access = self.access_to(principal, space)
        assert access is not None
        if write and not access.can_write:
            raise Forbidden(
                f"this key can only read space '{space.slug}'; ask for a read-write grant to "
                "save, correct or forget memories there"
            )
        return SpaceAccess(space, access)

    def visible_spaces(self, principal: Principal) -> list[SpaceAccess]:
        result = []
        for space in self._store.list_spaces():
            access = self.access_to(principal, space)
            if access is not None:
                result.append(SpaceAccess(space, access))
        return result

    def delegated(self, key_id: str, granted: Mapping[str, Access] | None = None) -> Principal:
        """The principal an OAuth token stands for: its key, narrowed to what was granted at
        consent (None: all of it) and to what the key holds now. Re-reads the key, so revoking it or lowering
        one of its grants takes effect on the next call.

        Raises:
            Unauthenticated: the key is gone or revoked.
        """
        key = self._store.get_key(key_id)
        if key is None or key.revoked_at is not None:
            raise Unauthenticated(
                "the API key this connection was approved with has been revoked; connect again "
                "and sign in with a current key or a new `memspace login-link`"
            )
        granted = key.grants if granted is None else granted
        grants = {space_id: min(access, key.grants[space_id], key=_RANK.__getitem__)
                  for space_id, access in granted.items() if space_id in key.grants}
        only = next(iter(grants)) if len(grants) == 1 else None
        return Principal(
            name=key.name, key_id=key.id, grants=grants,
            default_space_id=key.default_space_id if key.default_space_id in grants else only,
            active_space_id=key.active_space_id if key.active_space_id in grants else None,
            spaces=granted_spaces(key, grants),
        )

    def grantable(self, principal: Principal, wanted: Mapping[str, Access]) -> dict[str, Access]:
        """Checks what a person approves on the consent page against what they hold:
        `wanted` maps slugs to access; the answer maps space ids to access.

        Raises:
            InvalidInput: nothing was chosen.
            NotFound: a space the principal cannot see (same words as a missing one).
            Forbidden: read-write asked where the principal can only read.
        """
        if not wanted:
            raise InvalidInput("choose at least one space to share with this client")
        granted: dict[str, Access] = {}
        for slug, access in wanted.items():
            target = self.resolve(principal, slug, write=access.can_write)
            granted[target.space.id] = access
        return granted

    def set_active_space(self, principal: Principal, slug: str) -> SpaceAccess:
        if principal.key_id is None:
            raise Forbidden("the CLI operator has no active space; pass --space instead")
        target = self.resolve(principal, slug)
        self._store.set_active_space(principal.key_id, target.space.id)
        return target
