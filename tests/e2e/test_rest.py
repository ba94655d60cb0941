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


async def test_a_request_of_the_wrong_shape_is_refused_with_a_code_and_a_request_that_works(
    deployment: Deployment,
) -> None:
    space = deployment.space("rest-shape")
    key = deployment.key("rest-shape", {space: "rw"})
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        refusals = [
            await http.post("/v1/search", json={"space": space, "query": "x", "limit": "ten"}),
            await http.post("/v1/search", content=b"query=deploys",
                            headers={"Content-Type": "application/json"}),
            await http.post("/v1/memories", json={"space": space, "category": "process"}),
            await http.get("/v1/memories", params={"space": space, "limit": "many"}),
        ]
        for refused in refusals:
            said = refused.json()
            assert refused.status_code == 422 and said["error"] == "invalid_input", said
            assert "detail" not in said and "could not be read" in said["message"]
        limit, not_json, no_content, query = (r.json() for r in refusals)
        assert "limit" in limit["message"] and "not valid JSON" in not_json["message"]
        assert "content: Field required" in no_content["message"]
        assert query["example"] == {"method": "GET", "path": "/v1/memories", "query": {"limit": 1}}
        # the examples are requests the server reads: sent as shown (in this space), they work
        for said in (limit, no_content):
            shown = said["example"]
            assert shown["method"] == "POST"
            sent = await http.post(shown["path"], json=shown["body"] | {"space": space})
            assert sent.status_code in (200, 201), sent.json()
        # a refusal of the service's own rules on a route with an example carries it too
        bare = await http.post("/v1/search", json={"space": space})
        assert bare.status_code == 422 and bare.json()["example"]["body"]["query"]
        listed = (await http.get("/v1/memories", params={"space": space})).json()["memories"]
        assert [m["content"] for m in listed] == [no_content["example"]["body"]["content"]]
