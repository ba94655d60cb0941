"""Operator use cases: spaces and API keys (the CLI's `space` and `key` verbs)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memspace.domain.errors import InvalidInput, NotFound
from memspace.domain.models import Access, ApiKey, Space
from memspace.domain.ports import Clock
from memspace.domain.role_ports import SpaceTextStore
from memspace.domain.space_ports import DirectoryStore
from memspace.domain.toolsets import parse_toolsets
from memspace.services.access.access import generate_key, hash_key
from memspace.services.shared import AuditLog, new_id

SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


@dataclass(frozen=True)
class CreatedKey:
    key: ApiKey
    raw: str  # shown once, never stored


MAX_INSTRUCTIONS_CHARS = 4_000


def parse_grant(text: str) -> tuple[str, Access]:
    """`slug:rw` / `slug:r` (also `read`, `readwrite`) -> (slug, Access)."""
    slug, _, level = text.partition(":")
    levels = {"r": Access.READ, "read": Access.READ, "rw": Access.READWRITE,
              "readwrite": Access.READWRITE}
    if not slug or level.lower() not in levels:
        raise InvalidInput(f"grant '{text}' should look like SLUG:rw or SLUG:r")
    return slug, levels[level.lower()]


# Who the audit log names for what the CLI (the local operator) does.
OPERATOR = "operator (CLI)"


class AdminService:
    def __init__(self, store: DirectoryStore, clock: Clock, audit: AuditLog | None = None,
                 texts: SpaceTextStore | None = None) -> None:
        self._texts = texts
        self._store = store
        self._clock = clock
        self._audit = audit  # the operator's log of administrative actions (services/shared/audit.py)

    def _record(self, action: str, target: str, detail: str = "",
                space_id: str | None = None) -> None:
        if self._audit is not None:
            self._audit.record(OPERATOR, action, space_id=space_id, target=target, detail=detail)

    def create_space(self, slug: str, name: str | None = None, description: str = "") -> Space:
        """Raises InvalidInput for a bad slug, Conflict when it is taken."""
        slug = slug.strip().lower()
        if not SLUG_PATTERN.match(slug):
            raise InvalidInput(
                f"space slug '{slug}' must be 1-63 characters of a-z, 0-9 and '-', starting "
                "with a letter or digit (e.g. acme-project)"
            )
        now = self._clock.now()
        space = Space(new_id(), slug, name or slug, description, now, now)
        self._store.create_space(space)
        self._record("space.create", slug, space_id=space.id)
        return space

    def set_space(self, slug: str, description: str | None = None,
                  instructions: str | None = None) -> Space:
        """Change a space's description and/or its instructions for agents (get_context shows
        both first)."""
        if self._texts is None:
            raise InvalidInput("this store cannot change a space's description or instructions")
        if description is None and instructions is None:
            raise InvalidInput("pass --description TEXT and/or --instructions FILE")
        if instructions is not None and len(instructions) > MAX_INSTRUCTIONS_CHARS:
            raise InvalidInput(f"instructions are {len(instructions):,} characters; keep them "
                               f"under {MAX_INSTRUCTIONS_CHARS:,} (get_context shows them whole)")
        return self._texts.set_space_text(self.space(slug).id, description,
                                          instructions.strip() if instructions else instructions)

    def list_spaces(self) -> list[Space]:
        return self._store.list_spaces()

    def space(self, slug: str) -> Space:
        space = self._store.get_space_by_slug(slug)
        if space is None:
            raise NotFound(f"no space '{slug}'; `memspace space list` shows them")
        return space

    def create_key(
        self, name: str, grants: dict[str, Access], default_slug: str | None = None,
        toolsets: str | None = None,
    ) -> CreatedKey:
        """`toolsets`: the MCP toolsets listed to the key beyond the default list
        (comma-separated, `all`); None leaves the choice to the server."""
        if not name.strip():
            raise InvalidInput("a key needs a --name (who or what uses it, e.g. coding-agent)")
        if not grants:
            raise InvalidInput("a key needs at least one --grant SLUG:rw or SLUG:r")
        by_id = {self.space(slug).id: access for slug, access in grants.items()}
        default_id = None
        if default_slug is not None:
            default_id = self.space(default_slug).id
            if default_id not in by_id:
                raise InvalidInput(f"--default {default_slug} must be one of the granted spaces")
        elif len(by_id) == 1:
            default_id = next(iter(by_id))
        chosen = parse_toolsets(toolsets)
        raw, prefix = generate_key()
        key = ApiKey(
            id=new_id(), name=name.strip(), prefix=prefix, sha256=hash_key(raw), grants=by_id,
            default_space_id=default_id, active_space_id=None, created_at=self._clock.now(),
            toolsets=chosen,
        )
        self._store.create_key(key)
        self._record("key.create", key.prefix, f"name {key.name}; grants " + ", ".join(
            f"{slug}:{access.value}" for slug, access in grants.items())
            + (f"; toolsets {','.join(chosen)}" if chosen else ""))
        return CreatedKey(key, raw)

    def list_keys(self) -> list[ApiKey]:
        return self._store.list_keys()

    def revoke_key(self, id_or_prefix: str) -> ApiKey:
        """Accepts the key id or its displayed prefix (msk_xxxxxxxx)."""
        matches = [k for k in self._store.list_keys() if id_or_prefix in (k.id, k.prefix)]
        if len(matches) != 1:
            raise NotFound(f"no single key matches '{id_or_prefix}'; `memspace key list` shows them")
        self._store.revoke_key(matches[0].id, self._clock.now())
        revoked = self._store.get_key(matches[0].id)
        assert revoked is not None
        self._record("key.revoke", revoked.prefix, f"name {revoked.name}")
        return revoked
