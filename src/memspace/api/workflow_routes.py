"""REST for corrections with optimistic concurrency (409 on a stale version) and handoffs — the
same services as the MCP tools, for scripts and hooks (e.g. a SessionStart hook)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from memspace.api.deps import ContainerDep, PrincipalDep
from memspace.present.json import add_json
from memspace.present.pages import page_json
from memspace.present.records import handoff_json, memory_json

router = APIRouter()


class CorrectBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "content": "Deploys to production need one approval",
        "reason": "policy changed", "expectedVersion": 1}]})

    content: str
    reason: str | None = None
    category: str | None = None
    space: str | None = None
    expectedVersion: int | None = Field(default=None, ge=1)  # noqa: N815
    evidence: list[str] | None = None  # docs/evidence.md
    dryRun: bool = False  # noqa: N815
    observedAt: datetime | None = None  # noqa: N815  when the corrected fact began (docs/time.md)


class ForgetBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "reason": "the service was retired", "expectedVersion": 1}]})

    reason: str | None = None
    space: str | None = None
    expectedVersion: int | None = Field(default=None, ge=1)  # noqa: N815


class HandoffBody(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "space": "acme-rebuild", "summary": "Where the work stands",
        "nextSteps": ["what comes next"], "openQuestions": ["what is undecided"]}]})

    summary: str
    agent: str | None = None
    topic: str | None = None
    done: list[str] = []
    nextSteps: list[str] = []  # noqa: N815
    openQuestions: list[str] = []  # noqa: N815
    links: list[str] = []
    space: str | None = None
    evidence: list[str] | None = None  # docs/evidence.md


@router.post("/v1/memories/{memory_id}/correct", tags=["memories"], status_code=201)
async def correct_memory(memory_id: str, body: CorrectBody, app: ContainerDep,
                         who: PrincipalDep) -> dict[str, Any]:
    """Replace a memory; with `expectedVersion`, 409 `stale_version` if it changed since."""
    result = await run_in_threadpool(app.memories.correct, who, memory_id, body.content,
                                     body.space, body.category, body.reason, body.expectedVersion,
                                     body.evidence, body.dryRun, body.observedAt)
    return add_json(result)


@router.post("/v1/memories/{memory_id}/forget", tags=["memories"])
async def forget_memory(memory_id: str, body: ForgetBody, app: ContainerDep,
                        who: PrincipalDep) -> dict[str, Any]:
    """Deactivate a memory; with `expectedVersion`, 409 `stale_version` if it changed since."""
    gone = await run_in_threadpool(app.memories.forget, who, memory_id, None, body.reason,
                                   body.space, body.expectedVersion)
    return {"status": "forgotten", "memory": memory_json(gone)}


@router.post("/v1/handoffs", tags=["handoffs"], status_code=201)
async def save_handoff(body: HandoffBody, app: ContainerDep, who: PrincipalDep) -> dict[str, Any]:
    slug, handoff = await run_in_threadpool(
        app.handoffs.save, who, body.summary, body.agent, body.topic, body.done, body.nextSteps,
        body.openQuestions, body.links, body.space, body.evidence)
    return {"space": slug, "handoff": handoff_json(handoff)}


@router.get("/v1/handoffs/latest", tags=["handoffs"])
async def latest_handoff(app: ContainerDep, who: PrincipalDep, agent: str | None = None,
                         topic: str | None = None, space: str | None = None) -> dict[str, Any]:
    """The newest handoff (`handoff: null` when there is none yet)."""
    slug, handoff = await run_in_threadpool(app.handoffs.latest, who, agent, topic, space)
    return {"space": slug, "handoff": handoff_json(handoff) if handoff else None}


@router.get("/v1/handoffs", tags=["handoffs"])
async def list_handoffs(app: ContainerDep, who: PrincipalDep, agent: str | None = None,
                        limit: int = 10, cursor: str | None = None,
                        space: str | None = None) -> dict[str, Any]:
    slug, page = await run_in_threadpool(app.handoffs.list, who, agent, limit, cursor, space)
    return page_json(slug, "handoffs", page, handoff_json)
