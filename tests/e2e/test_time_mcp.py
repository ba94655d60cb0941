"""As-of reads end to end (docs/time.md): the real app and embedding model, an agent over MCP
(streamable HTTP) and a script over REST, on each store. A fact corrected with the date the
change took effect: asOf before it, exactly on it, and knownAt before the correction was made."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

TUESDAYS = "The release train leaves on Tuesdays at 10:00"
THURSDAYS = "The release train leaves on Thursdays at 10:00"
QUERY = "when does the release train leave"


def contents(answer: dict[str, object]) -> set[str]:
    return {str(r["content"]) for r in answer["results"]}  # type: ignore[attr-defined]


async def test_an_agent_reads_what_held_and_what_was_known(deployment: Deployment) -> None:
    space = deployment.space("asof")
    key = deployment.key("auditor", {space: "rw"})
    async with mcp_client(deployment.url, key) as agent:
        first = data(await agent.call_tool("add_memory", {
            "content": TUESDAYS, "observedAt": "2026-02-01T00:00:00Z"}))["memories"][0]
        fixed = data(await agent.call_tool("correct_memory", {
            "memoryId": first["id"], "content": THURSDAYS, "reason": "moved by the release team",
            "observedAt": "2026-03-01T00:00:00Z"}))["memories"][0]
        assert fixed["validFrom"] == "2026-03-01T00:00:00Z"

        async def search(**at: str) -> set[str]:
            return contents(data(await agent.call_tool("search_memory", {"query": QUERY, **at})))

        assert await search() == {THURSDAYS}
        assert await search(asOf="2026-02-15T00:00:00Z") == {TUESDAYS}
        assert await search(asOf="2026-03-01T00:00:00Z") == {THURSDAYS}  # [from, to)
        assert await search(asOf="2026-01-15") == set()  # before either held
        # What the space held before the correction was saved, whatever its date says.
        assert await search(knownAt=first["createdAt"]) == {TUESDAYS}
        assert await search(asOf="2026-03-15T00:00:00Z", knownAt=first["createdAt"]) == {TUESDAYS}
        # Keyword-only, the slice kept by the store's own fetch (stores/sliced_ranking.py).
        keyword = {"keyword": "release train", "asOf": "2026-02-15T00:00:00Z"}
        assert contents(data(await agent.call_tool("search_memory", keyword))) == {TUESDAYS}
        keyword["knownAt"] = first["createdAt"]
        keyword["asOf"] = "2026-03-15T00:00:00Z"
        assert contents(data(await agent.call_tool("search_memory", keyword))) == {TUESDAYS}

        listed = data(await agent.call_tool("listMemories", {"asOf": "2026-02-15T00:00:00Z"}))
        assert [m["content"] for m in listed["memories"]] == [TUESDAYS]
        context = await agent.call_tool("get_context", {"asOf": "2026-02-15T00:00:00Z"})
        text = context.content[0].text  # type: ignore[union-attr]
        assert "Tuesdays" in text and "Thursdays" not in text
        assert "NOT TODAY'S VIEW: facts valid at 2026-02-15T00:00:00Z" in text
        sliced = await agent.call_tool("search_memory", {"query": QUERY, "knownAt": "2026-01-01"})
        assert data(sliced)["knownAt"] == "2026-01-01T00:00:00Z"
        assert "what the space held at 2026-01-01T00:00:00Z" in sliced.content[0].text  # type: ignore[union-attr]

        detail = data(await agent.call_tool("getMemory", {"memoryId": fixed["id"]}))
        line = [(p["id"], p["validFrom"], p["validTo"], p["reason"]) for p in detail["timeline"]]
        assert line == [
            (first["id"], "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", None),
            (fixed["id"], "2026-03-01T00:00:00Z", None, "moved by the release team"),
        ]
        assert detail["timeline"][0]["supersededAt"] == detail["timeline"][1]["recordedAt"]

        refused = error_text(await agent.call_tool("search_memory",
                                                   {"query": QUERY, "asOf": "next tuesday"}))
        assert "invalid_input" in refused and "2026-05-01T09:00:00Z" in refused
        future = error_text(await agent.call_tool("search_memory",
                                                  {"query": QUERY, "knownAt": "2999-01-01"}))
        assert "invalid_input" in future and "in the future" in future

    async with httpx2.AsyncClient(base_url=deployment.url, timeout=30,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        listed = (await http.get("/v1/memories", params={
            "space": space, "knownAt": first["createdAt"]})).json()
        assert [m["content"] for m in listed["memories"]] == [TUESDAYS]
        found = (await http.post("/v1/search", json={
            "query": QUERY, "space": space, "asOf": "2026-02-15T00:00:00Z"})).json()
        assert contents(found) == {TUESDAYS}
        bad = await http.post("/v1/search", json={"query": QUERY, "space": space,
                                                  "asOf": "2026-02-30"})
        assert bad.status_code == 422 and bad.json()["error"] == "invalid_input"
