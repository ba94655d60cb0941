"""REST routes: health, readiness, and the read/write calls the CLI and widgets share with MCP."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.domain.errors import MemspaceError
from memspace.domain.indexing import index_progress
from memspace.present.json import (
    add_json,
    changes_json,
    marked_json,
    memory_detail_json,
    revisions_json,
    search_json,
)
from memspace.present.pages import page_json
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
    (503 with the reason while either is not); 200 `indexing`, with each index's progress,
    while the store still builds an index (a fresh load on Neo4j)."""
    try:
        await run_in_threadpool(app.store.ping)
        progress = await run_in_threadpool(index_progress, app.store)
    except MemspaceError as exc:
        return JSONResponse({"status": "unavailable", "store": app.settings.store,
                             "message": exc.message}, status_code=503)
    warmed = getattr(request.app.state, "warmed", None)
    if warmed is not None and not warmed.is_set():
        return JSONResponse({"status": "starting", "store": app.settings.store,
                             "message": "loading the embedding model and the vector caches"},
                            status_code=503)
    if progress is not None and not progress.done:
        # Serving already: only searches that need an index still building take a slower path.
        return JSONResponse({"status": "indexing", "store": app.settings.store,
                             "message": progress.describe(), "indexes": progress.as_json()})
    return JSONResponse({"status": "ready", "store": app.settings.store})


class AddBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "content": "Deploys to production need two approvals",
        "category": "process"}]})

    content: str
    category: str | None = None
    space: str | None = None
    evidence: list[str] | None = None  # docs/evidence.md
    dryRun: bool = False  # noqa: N815
    type: str | None = None
    importance: int | None = Field(default=None, ge=1, le=5)
    canonical: bool = False
    supersedes: list[str] = []
    force: bool = False
    expiresAt: str | None = None  # noqa: N815  (docs/lifecycle.md#expiry)
    forgetAfter: str | None = None  # noqa: N815


class MarkBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "status": "disputed",
        "reason": "the load test of 2 June contradicts it", "expectedVersion": 1}]})

    status: str
    reason: str
    space: str | None = None
    expectedVersion: int | None = Field(default=None, ge=1)  # noqa: N815


class SearchBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "query": "how do we deploy to production?", "limit": 5}]})

    query: str | None = None
    keyword: str | None = None
    category: str | None = None
    space: str | None = None
    limit: int = Field(default=10, ge=1, le=50)
    includeProfile: bool = False  # noqa: N815
    includeInactive: bool = False  # noqa: N815
    # the keyword's words only as typed, no typo variants (memspace hook prompt-recall)
    exactKeyword: bool = False  # noqa: N815
    provenance: list[str] = Field(default_factory=list)  # human | agent | document | model | import
    types: list[str] = []
    statuses: list[str] = []
    includeBody: bool = False  # noqa: N815
    asOf: str | None = None  # noqa: N815  (docs/time.md)
    knownAt: str | None = None  # noqa: N815


@router.post("/v1/memories", tags=["memories"], status_code=201)
async def add_memory(body: AddBody, app: ContainerDep, who: PrincipalDep) -> Any:
    request = AddRequest(body.content, body.space, body.category, memory_type=body.type,
                         importance=body.importance, canonical=body.canonical,
                         supersedes=tuple(body.supersedes), force=body.force,
                         evidence=tuple(body.evidence) if body.evidence is not None else None,
                         expires_at=body.expiresAt, forget_after=body.forgetAfter)
    result = await run_in_threadpool(lambda: app.memories.submit(who, request,
                                                                 dry_run=body.dryRun))
    if result.status == "conflict":  # nothing stored: the answer says how to resolve it
        return JSONResponse(add_json(result), status_code=409)
    return add_json(result)


@router.post("/v1/memories/{memory_id}/status", tags=["memories"])
async def mark_memory(memory_id: str, body: MarkBody, app: ContainerDep,
                      who: PrincipalDep) -> dict[str, Any]:
    return marked_json(await run_in_threadpool(app.lifecycle.mark, who, memory_id, body.status,
                                               body.reason, body.space, body.expectedVersion))


@router.get("/v1/memories/{memory_id}", tags=["memories"])
async def get_memory(memory_id: str, app: ContainerDep, who: PrincipalDep,
                     space: str | None = None,
                     knownAt: str | None = None,  # noqa: N803  (docs/time.md)
                     ) -> dict[str, Any]:
    return memory_detail_json(await run_in_threadpool(app.memories.get, who, memory_id, space,
                                                      knownAt))


@router.post("/v1/search", tags=["memories"])
async def search(body: SearchBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    request = SearchRequest(body.query, body.keyword, body.category, body.space, body.limit,
                            body.includeProfile, body.includeInactive,
                            exact_keyword=body.exactKeyword, provenance=tuple(body.provenance),
                            types=tuple(body.types), statuses=tuple(body.statuses),
                            include_body=body.includeBody, as_of=body.asOf,
                            known_at=body.knownAt)
    return search_json(await run_in_threadpool(app.search.search, who, request))


@router.get("/v1/memories", tags=["memories"])
async def list_memories(app: ContainerDep, who: PrincipalDep, space: str | None = None,
                        category: str | None = None, includeInactive: bool = False,  # noqa: N803
                        limit: int = 20, cursor: str | None = None,
                        asOf: str | None = None, knownAt: str | None = None,  # noqa: N803
                        ) -> dict[str, Any]:
    slug, page = await run_in_threadpool(
        app.memories.list, who, space, category, includeInactive, limit, cursor, None, None,
        asOf, knownAt)
    return page_json(slug, "memories", page, memory_json)


class PatchBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "old": "two approvals", "new": "one approval",
        "reason": "policy changed", "expectedVersion": 1}]})

    append: str | None = None
    prepend: str | None = None
    old: str | None = None  # with `new`: replace the one occurrence of `old`
    new: str | None = None
    reason: str | None = None
    space: str | None = None
    expectedVersion: int | None = Field(default=None, ge=1)  # noqa: N815
    observedAt: datetime | None = None  # noqa: N815  (docs/time.md)


class BatchBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "ids": ["<id from a search>", "<another id>"]}]})

    ids: list[str] = Field(min_length=1, max_length=50)
    space: str | None = None
    knownAt: str | None = None  # noqa: N815  (docs/time.md)


@router.post("/v1/memories/{memory_id}/patch", tags=["memories"])
async def patch_memory(memory_id: str, body: PatchBody, app: ContainerDep,
                       who: PrincipalDep) -> dict[str, Any]:
    result = await run_in_threadpool(app.memories.patch, who, memory_id, body.append,
                                     body.prepend, body.old, body.new, body.space,
                                     body.expectedVersion, body.reason, body.observedAt)
    return add_json(result)


@router.post("/v1/memories/batch", tags=["memories"])
async def get_memories(body: BatchBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    slug, found, missing = await run_in_threadpool(app.memories.get_many, who, body.ids,
                                                   body.space, body.knownAt)
    return {"space": slug, "memories": [memory_json(m) for m in found], "missing": missing}


@router.get("/v1/memories/{memory_id}/revisions", tags=["memories"])
async def memory_revisions(memory_id: str, app: ContainerDep, who: PrincipalDep,
                           space: str | None = None,
                           knownAt: str | None = None) -> dict[str, Any]:  # noqa: N803
    slug, line = await run_in_threadpool(app.lifecycle.revisions, who, memory_id, space, knownAt)
    return revisions_json(slug, line)


@router.get("/v1/changes", tags=["memories"])
async def changes_since(app: ContainerDep, who: PrincipalDep, since: str | None = None,
                        cursor: str | None = None, types: Annotated[list[str] | None, Query()] = None,
                        limit: int | None = None, maxTokens: int | None = None,  # noqa: N803
                        space: str | None = None) -> dict[str, Any]:
    page = await run_in_threadpool(app.changes.since, who, since, cursor, types, limit,
                                   maxTokens, space)
    return changes_json(page)


class RenameBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"space": "acme-rebuild", "old": "infra", "new": "infrastructure"}]})

    old: str
    new: str
    space: str | None = None


@router.post("/v1/categories/rename", tags=["memories"])
async def rename_category(body: RenameBody, app: ContainerDep,
                          who: PrincipalDep) -> dict[str, Any]:
    slug, renamed = await run_in_threadpool(app.memories.rename_category, who, body.space,
                                            body.old, body.new)
    return {"space": slug, "renamed": len(renamed),
            "memories": [memory_json(m, lean=True) for m in renamed]}
