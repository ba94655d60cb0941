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
    Field(description="Space slug; omit for your active space."),
]
LimitArg = Annotated[int, Field(ge=1, le=100, description="Page size (1-100).")]
CursorArg = Annotated[
    str | None, Field(description="`nextCursor` from the previous page of the same call.")
]
TYPES = ("decision, constraint, architecture, fact, incident, failed_approach, procedure, status, "
         "task, preference, reference, note")
TypeArg = Annotated[str | None, Field(description=f"One of {TYPES} (default note).")]
TypesArg = Annotated[list[str] | None, Field(description="Only these types (see add_memory's type).")]
StatusesArg = Annotated[list[str] | None, Field(description="Only these statuses: current, superseded, historical, disputed, pending.")]
AsOfArg = Annotated[str | None, Field(description="ISO 8601 time: facts valid then, as known now.")]
KnownAtArg = Annotated[str | None, Field(description="ISO 8601 time: what the space held then (later changes unseen).")]
ObservedAtArg = Annotated[datetime | None, Field(description="When it began to hold (ISO 8601; default now).")]
IncludeBodyArg = Annotated[bool, Field(description="Whole texts, not excerpts of long memories.")]
ImportanceArg = Annotated[int | None, Field(ge=1, le=5, description="1-5 (default 3); weighs it in get_context.")]

