"""REST for the conflict queue (docs/conflicts.md): the same service calls as list_conflicts
and resolve_conflict."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.present.conflicts import conflicts_json, resolution_json

router = APIRouter()


class ResolveBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "keep": "<the memory id that holds>",
        "supersede": ["<the memory id that no longer holds>"],
        "reason": "the March load test settled it", "version": "<version from GET /v1/conflicts>"}]})

    reason: str | None = None
    keep: str | None = None
    supersede: list[str] | None = None
    version: str | None = None
    space: str | None = None


@router.get("/v1/conflicts", tags=["conflicts"])
async def list_conflicts(app: ContainerDep, who: PrincipalDep, limit: int = 20,
                         cursor: str | None = None, space: str | None = None) -> dict[str, Any]:
    """`list_conflicts`: the space's open conflicts, newest first."""
    page = await run_in_threadpool(app.conflicts.listing, who, space, limit, cursor)
    return conflicts_json(page)


@router.post("/v1/conflicts/{conflict_id}/resolve", tags=["conflicts"])
async def resolve_conflict(conflict_id: str, body: ResolveBody, app: ContainerDep,
                           who: PrincipalDep) -> dict[str, Any]:
    """`resolve_conflict`: settle one in one write (409 stale_version on a moved version)."""
    done = await run_in_threadpool(app.conflicts.resolve, who, conflict_id, body.keep,
                                   body.supersede, body.reason, body.version, body.space)
    return resolution_json(done)
