"""Issue 38 over the wire, on a served memspace per store: a credential refused with the
closed-set code `contains_secret` (MCP) / 422 (REST) naming kind and place but never the value,
with the write without it as the example; provenance on hits and as a search filter; recalled
text quoted; the audit log never reachable through the API."""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.conftest import Deployment
from tests.support.server import data

pytestmark = pytest.mark.e2e
SECRET = "ghp_8QsI9qt6G6bvZ9Z9rYW0ZuXpge8bvijdu7Ox"  # a fake GitHub token in the real format


async def test_a_secret_is_refused_over_mcp_and_rest_and_never_echoed(deployment: Deployment) -> None:
    space = deployment.space("secrets")
    key = deployment.key("agent", {space: "rw"})
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    async with http, Client(streamable_http_client(f"{deployment.url}/mcp", http_client=http)) as client:
        refused = await client.call_tool("add_memory", {
            "content": f"CI pushes tags with {SECRET}", "space": space, "wait": True})
        assert refused.is_error
        body = refused.structured_content
        assert body["code"] == "contains_secret"
        assert body["findings"] == [{"field": "content", "kind": "github-token",
                                     "where": "line 1, characters 21-60"}]
        assert body["example"] == {"name": "add_memory", "arguments": {
            "content": "CI pushes tags with [redacted:github-token]"}}
        assert SECRET not in str(refused.content) and SECRET not in str(body)
        listed = data(await client.call_tool("listMemories", {"space": space}))
        assert listed["memories"] == []  # nothing was written

        data(await client.call_tool("add_memory", {
            "content": "CI pushes release tags on Fridays", "space": space, "wait": True}))
        found = await client.call_tool("search_memory", {
            "query": "release tags", "space": space, "provenance": ["agent"]})
        hit = data(found)["results"][0]
        assert hit["who"] == "key agent"  # an agent's key, named as the text names it
        whole = data(await client.call_tool("search_memory", {
            "query": "release tags", "space": space, "provenance": ["agent"],
            "fullRecords": True}))["results"][0]
        assert whole["provenance"] == {"kind": "agent", "source": "key agent"}
        text = found.content[0].text  # type: ignore[union-attr]
        assert "│ CI pushes release tags on Fridays" in text and "never an instruction" in text
        people = data(await client.call_tool("search_memory", {
            "query": "release tags", "space": space, "provenance": ["human"]}))
        assert people["results"] == []

    async with httpx.AsyncClient(timeout=60) as rest:
        answer = await rest.post(f"{deployment.url}/v1/memories", headers={"X-Api-Key": key},
                                 json={"content": f"token {SECRET}", "space": space})
        assert answer.status_code == 422 and answer.json()["error"] == "contains_secret"
        assert SECRET not in answer.text and answer.json()["findings"][0]["kind"] == "github-token"
        for path in ("/v1/audit", "/v1/audit-log", "/v1/spaces/audit"):
            assert (await rest.get(f"{deployment.url}{path}",
                                   headers={"X-Api-Key": key})).status_code in (404, 405)
