"""REST routes of the evidence surface (docs/evidence.md): verification and code chunks."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.present.code import chunk_json, code_search_json, verify_json

router = APIRouter()


class VerifyBody(BaseModel):
    space: str | None = None
    memoryId: str | None = None  # noqa: N815


class CodeSearchBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"space": "acme-rebuild", "query": "where are retries capped?"}]})

    query: str
    space: str | None = None
    limit: int = 10


@router.post("/v1/verify", tags=["evidence"])
async def verify(body: VerifyBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    """Verify one cited memory (`memoryId`) or every cited memory of the space."""
    report = await run_in_threadpool(app.verification.verify, who, body.space, body.memoryId)
    return verify_json(report)


@router.post("/v1/code/search", tags=["evidence"])
async def code_search(body: CodeSearchBody, app: ContainerDep,
                      who: PrincipalDep) -> dict[str, Any]:
    found = await run_in_threadpool(app.code.search, who, body.query, body.space, body.limit)
    return code_search_json(found)


@router.get("/v1/chunks/{chunk_id}", tags=["evidence"])
async def get_chunk(chunk_id: str, app: ContainerDep, who: PrincipalDep,
                    space: str | None = None) -> dict[str, Any]:
    return chunk_json(await run_in_threadpool(app.code.get_chunk, who, chunk_id, space))
