"""The REST surface shares keys, rules and errors with MCP."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def test_health_and_readiness_need_no_key(deployment: Deployment) -> None:
    async with httpx2.AsyncClient(base_url=deployment.url) as http:
        assert (await http.get("/healthz")).json() == {"status": "ok"}
        ready = (await http.get("/readyz")).json()
        assert ready["status"] == "ready" and ready["store"] == deployment.app.settings.store


async def test_rest_add_search_and_errors_follow_the_same_rules(deployment: Deployment) -> None:
    space = deployment.space("rest")
    writer = deployment.key("rest-writer", {space: "rw"})
    reader = deployment.key("rest-reader", {space: "r"})
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {writer}"}) as http:
        added = await http.post("/v1/memories", json={"content": "REST clients are welcome"})
        assert added.status_code == 201 and added.json()["status"] == "created"
        found = (await http.post("/v1/search", json={"query": "who is welcome?"})).json()
        assert found["results"][0]["content"] == "REST clients are welcome"
        memory_id = found["results"][0]["id"]
        assert (await http.get(f"/v1/memories/{memory_id}")).json()["memory"]["id"] == memory_id
        empty = await http.post("/v1/memories", json={"content": " "})
        assert empty.status_code == 422 and "empty" in empty.json()["message"]
        missing = await http.get("/v1/memories/nope")
        assert missing.status_code == 404 and "no memory" in missing.json()["message"]
    async with httpx2.AsyncClient(base_url=deployment.url, headers={"X-Api-Key": reader}) as http:
        refused = await http.post("/v1/memories", json={"content": "sneaky"})
        assert refused.status_code == 403 and "can only read" in refused.json()["message"]
        listed = (await http.get("/v1/memories")).json()
        assert [m["content"] for m in listed["memories"]] == ["REST clients are welcome"]
    async with httpx2.AsyncClient(base_url=deployment.url) as http:
        assert (await http.get("/v1/memories")).status_code == 401
