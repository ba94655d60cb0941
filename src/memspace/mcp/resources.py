"""Resources and the `context` prompt (docs/contract.md): what a key's spaces know, on request."""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from pydantic import Field

from memspace.domain.errors import MemspaceError, RateLimited
from memspace.mcp.identity import principal_of
from memspace.present.json import memory_detail_json, profile_json, spaces_json
from memspace.services.access import Principal
from memspace.startup.container import Container
from memspace.surfaces.identity import current_wait


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


def _read(fn: Any) -> str:
    """Resources speak ResourceError; domain errors keep their message."""
    try:
        return _json(fn())
    except MemspaceError as exc:
        raise ResourceError(f"{exc.code}: {exc.message}") from exc


def register_resources(server: MCPServer, app: Container) -> None:
    def who() -> Principal:
        if wait := current_wait.get():  # reads draw on the key's bucket like tool calls
            raise RateLimited(wait)
        return principal_of(None)

    @server.resource("memspace://profile", name="profile", title="Active space profile",
                     mime_type="application/json",
                     description="The active space: description, counts, newest memories.")
    def profile() -> str:
        return _read(lambda: profile_json(app.profiles.of(who())))

    @server.resource("memspace://spaces", name="spaces", title="My spaces",
                     mime_type="application/json",
                     description="The spaces this key can use, with access level and activity.")
    def spaces() -> str:
        return _read(lambda: spaces_json(app.spaces.listing(who())))

    @server.resource("memspace://memories/{memory_id}", name="memory", title="A memory and its history",
                     mime_type="application/json",
                     description="One memory of the active space with its relations and history.")
    def memory(memory_id: str) -> str:
        return _read(lambda: memory_detail_json(app.memories.get(who(), memory_id)))

    @server.prompt(
        name="context",
        title="Shared memory context",
        description=(
            "What your memory spaces know, ready to start a session with: the active space's "
            "profile and most useful memories, then up to three other recently active spaces, "
            "packed into maxTokens. Pass `query` (your task) to rank by relevance."
        ),
    )
    def context(
        query: Annotated[str | None, Field(description="The task at hand, to rank by relevance.")] = None,
        maxTokens: Annotated[int, Field(description="Token budget of the whole text.")] = 2000,  # noqa: N803
    ) -> str:
        try:
            return app.briefings.brief(who(), query, maxTokens).text
        except MemspaceError as exc:
            raise ValueError(f"{exc.code}: {exc.message}") from exc
