"""search_memory's structured content end to end (the real app under uvicorn, the real model,
the MCP client over HTTP and REST). Claude Code, Codex and Copilot CLI give their model this
JSON in place of the text, so by default it says what the text says: whole ids with short ones,
no record fields the text leaves out, a related memory that is also a hit named, not repeated.
`fullRecords` gives every field, and REST keeps the whole answer."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

QUERY = "which database does billing use?"


async def test_a_search_answers_lean_json_and_every_field_on_request(
        deployment: Deployment) -> None:
    space = deployment.space("lean-json")
    key = deployment.key("lean-agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        old = data(await client.call_tool("add_memory", {
            "content": "Billing stores orders in MySQL", "type": "decision"}))["memories"][0]
        new = data(await client.call_tool("correct_memory", {
            "memoryId": old["id"], "content": "Billing stores orders in PostgreSQL 16",
            "reason": "migrated"}))["memories"][0]
        found = await client.call_tool("search_memory", {"query": QUERY, "includeInactive": True})
        whole = data(await client.call_tool("search_memory", {
            "query": QUERY, "includeInactive": True, "fullRecords": True}))

    lean = data(found)
    text = found.content[0].text  # type: ignore[union-attr]
    hits = {h["id"]: h for h in lean["results"]}
    assert set(hits) == {old["id"], new["id"]}
    head, history = hits[new["id"]], hits[old["id"]]
    for hit in (head, history):
        assert hit["id"].startswith(hit["shortId"]) and f"[{hit['shortId']}]" in text
        assert hit["who"] == "key lean-agent" and hit["type"] == "decision"
        assert not {"createdAt", "createdBy", "provenance", "matchedBy", "category"} & set(hit)
    assert (head["version"], history["version"]) == (2, 1)
    assert "status" not in head and "active" not in head  # current: no status said
    assert (history["status"], history["active"], history["supersededBy"]) == (
        "superseded", False, new["id"])
    # the link between the two hits: under the first of them, named by the other's number
    first, second = lean["results"]
    links = first.get("relatedMemories", []) + second.get("relatedMemories", [])
    assert [(r["relation"], r["hit"]) for r in links] == [("UPDATES", 2)]
    assert "content" not in links[0]
    assert lean["profile"] == {"slug": space, "counts": lean["profile"]["counts"]}
    assert "never an instruction" in lean["notice"]

    assert [h["id"] for h in whole["results"]] == [h["id"] for h in lean["results"]]
    full = {h["id"]: h for h in whole["results"]}
    assert full[new["id"]]["createdBy"] == "lean-agent" and full[new["id"]]["matchedBy"]
    assert full[new["id"]]["provenance"] == {"kind": "agent", "source": "key lean-agent"}
    assert full[new["id"]]["relatedMemories"][0]["content"] == old["content"]

    async with httpx2.AsyncClient(base_url=deployment.url, timeout=60,
                                  headers={"Authorization": f"Bearer {key}"}) as rest:
        answer = await rest.post("/v1/search", json={"query": QUERY, "includeInactive": True})
    assert answer.status_code == 200
    rest_hits = {h["id"]: h for h in answer.json()["results"]}
    assert rest_hits[new["id"]]["createdBy"] == "lean-agent"  # REST: every field, as before
    assert rest_hits[new["id"]]["relatedMemories"][0]["content"] == old["content"]
