"""The argument types and annotations the MCP tools share (their descriptions are part of each
tool's schema: docs/contract.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

SpaceArg = Annotated[
    str | None,
    Field(description="Space slug (e.g. acme-project). Omit to use the key's active or default space."),
]
LimitArg = Annotated[int, Field(ge=1, le=100, description="Page size (1-100).")]
CursorArg = Annotated[
    str | None, Field(description="`nextCursor` from the previous page of the same call.")
]
TYPES = ("decision, constraint, architecture, fact, incident, failed_approach, procedure, status, "
         "task, preference, reference, note")
TypeArg = Annotated[str | None, Field(description=f"What kind of note it is: one of {TYPES} (default note).")]
TypesArg = Annotated[list[str] | None, Field(description=f"Only memories of these types ({TYPES}).")]
StatusesArg = Annotated[list[str] | None, Field(description="Only memories in these statuses (current, superseded, historical, disputed, pending); superseded and historical ones are read too when named.")]
AsOfArg = Annotated[str | None, Field(description="Facts valid at this ISO 8601 time, as the space knows them now (e.g. 2026-05-01T09:00:00Z); omit for current facts.")]
KnownAtArg = Annotated[str | None, Field(description="What the space held at this past ISO 8601 time, corrections made since ignored; with asOf, facts valid at asOf as known at knownAt.")]
ObservedAtArg = Annotated[datetime | None, Field(description="When the corrected fact began to hold (ISO 8601); default: now. Ends the old version's valid time.")]
IncludeBodyArg = Annotated[bool, Field(description="Whole contents; by default a long memory shows as an excerpt with `bodyChars` (getMemory or getMemories read it whole).")]
ImportanceArg = Annotated[int | None, Field(ge=1, le=5, description="1 (minor) to 5 (must not be missed); default 3. Weighs it in get_context.")]

