"""REST routes: health, readiness, and the read/write calls the CLI and widgets share with MCP."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.domain.errors import MemspaceError
from memspace.present.json import add_json, memory_detail_json, search_json
from memspace.present.records import memory_json
from memspace.services.memories import AddRequest
from memspace.services.search import SearchRequest

router = APIRouter()


@router.get("/healthz", tags=["health"])
async def healthz() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@router.get("/readyz", tags=["health"])
async def readyz(request: Request, app: ContainerDep) -> JSONResponse:
    """Readiness: the store answers and the embedding model and vector caches are loaded
    (503 with the reason while either is not)."""
    try:
        await run_in_threadpool(app.store.ping)
    except MemspaceError as exc:
        return JSONResponse({"status": "unavailable", "store": app.settings.store,
                             "message": exc.message}, status_code=503)
    warmed = getattr(request.app.state, "warmed", None)
    if warmed is not None and not warmed.is_set():
        return JSONResponse({"status": "starting", "store": app.settings.store,
                             "message": "loading the embedding model and the vector caches"},
                            status_code=503)
    return JSONResponse({"status": "ready", "store": app.settings.store})


class AddBody(BaseModel):
    content: str
    category: str | None = None
    space: str | None = None
    evidence: list[str] | None = None  # docs/evidence.md
    dryRun: bool = False  # noqa: N815


class SearchBody(BaseModel):
    query: str | None = None
    keyword: str | None = None
    category: str | None = None
    space: str | None = None
    limit: int = Field(default=10, ge=1, le=50)
    includeProfile: bool = False  # noqa: N815
    includeInactive: bool = False  # noqa: N815


@router.post("/v1/memories", tags=["memories"], status_code=201)
async def add_memory(body: AddBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    request = AddRequest(body.content, body.space, body.category,
                         evidence=tuple(body.evidence) if body.evidence is not None else None)
    result = await run_in_threadpool(lambda: app.memories.submit(who, request,
                                                                 dry_run=body.dryRun))
    return add_json(result)


@router.get("/v1/memories/{memory_id}", tags=["memories"])
async def get_memory(memory_id: str, app: ContainerDep, who: PrincipalDep,
                     space: str | None = None) -> dict[str, Any]:
    return memory_detail_json(await run_in_threadpool(app.memories.get, who, memory_id, space))


@router.post("/v1/search", tags=["memories"])
async def search(body: SearchBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    request = SearchRequest(body.query, body.keyword, body.category, body.space, body.limit,
                            body.includeProfile, body.includeInactive)
    return search_json(await run_in_threadpool(app.search.search, who, request))


@router.get("/v1/memories", tags=["memories"])
async def list_memories(app: ContainerDep, who: PrincipalDep, space: str | None = None,
                        category: str | None = None, includeInactive: bool = False,  # noqa: N803
                        limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
    slug, page = await run_in_threadpool(
        app.memories.list, who, space, category, includeInactive, limit, cursor
    )
    return {"space": slug, "memories": [memory_json(m) for m in page.items],
            "nextCursor": page.next_cursor}
