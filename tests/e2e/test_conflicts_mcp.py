"""End to end over MCP and REST (the real app under uvicorn, the real embedding model, the mcp
Client over streamable HTTP), on each store: a write refused as a conflict waits in the queue
with its proposal, is counted by whoAmI and get_context, and is settled in one write that the
memories' history shows; a stale view and a bad choice are refused (docs/conflicts.md)."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def test_a_refused_write_waits_in_the_queue_and_is_settled_by_keeping_it(
        deployment: Deployment) -> None:
    space = deployment.space("queue")
    key = deployment.key("architect", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        first = data(await client.call_tool("add_memory", {
            "content": "Sessions use opaque tokens instead of JWTs", "type": "decision",
            "space": space}))
        held = first["memories"][0]["id"]
        clash = data(await client.call_tool("add_memory", {
            "content": "Sessions use JWTs instead of opaque tokens", "type": "decision",
            "space": space}))
        assert clash["status"] == "conflict"

        answer = await client.call_tool("list_conflicts", {"space": space})
        listed = data(answer)
        assert listed["open"] == 1
        [conflict] = listed["conflicts"]
        assert conflict["kind"] == "write_conflict"
        stored, proposal = conflict["sides"]
        assert (stored["id"], stored["createdBy"]) == (held, "architect")
        # the text names the conflict and its stored side by their short ids; the JSON keeps
        # the whole ones beside them
        text = answer.content[0].text  # type: ignore[union-attr]
        for named in (conflict, stored):
            assert named["id"].startswith(named["shortId"]) and len(named["shortId"]) >= 8
            assert named["shortId"] in text and named["id"] not in text
        assert proposal == {"id": "proposal", "content": "Sessions use JWTs instead of opaque tokens",
                            "type": "decision", "category": "general", "createdBy": "architect",
                            "createdAt": proposal["createdAt"], "stored": False}
        me = data(await client.call_tool("whoAmI", {}))
        assert me["openConflicts"][space] == 1
        context = data(await client.call_tool("get_context", {"space": space}))
        assert context["meta"]["openConflicts"] == 1
        assert "1 open conflict waiting" in context["context"]

        wrong = error_text(await client.call_tool("resolve_conflict", {
            "conflictId": conflict["id"], "keep": "mem-not-a-side", "supersede": [held],
            "reason": "x", "space": space}))
        assert "invalid_input" in wrong and "not a side" in wrong and "resolve_conflict" in wrong

        resolved = await client.call_tool("resolve_conflict", {  # by the ids the text shows
            "conflictId": conflict["shortId"], "keep": "proposal", "supersede": [stored["shortId"]],
            "reason": "we moved to JWTs for the mobile clients", "version": conflict["version"],
            "space": space})
        done = data(resolved)
        kept = done["kept"]
        # its text names the kept memory by the short id its JSON adds (the stored side is
        # superseded by the proposal's write, not listed again)
        settled = resolved.content[0].text  # type: ignore[union-attr]
        assert kept["id"].startswith(kept["shortId"]) and len(kept["shortId"]) >= 8
        assert f"Kept: [{kept['shortId']}] v{kept['version']}" in settled and kept["id"] not in settled
        again = data(await client.call_tool("getMemory", {"memoryId": kept["shortId"], "space": space}))
        assert again["memory"]["id"] == kept["id"]
        assert kept["content"] == "Sessions use JWTs instead of opaque tokens"
        assert kept["status"] == "current" and done["resolvedBy"] == "architect"
        old = data(await client.call_tool("getMemory", {"memoryId": held, "space": space}))
        assert (old["memory"]["status"], old["memory"]["supersededBy"]) == (
            "superseded", kept["id"])
        assert data(await client.call_tool("list_conflicts", {"space": space}))["open"] == 0
        history = data(await client.call_tool("list_memory_revisions", {
            "memoryId": kept["id"], "space": space}))
        marks = [m for r in history["revisions"] for m in r["marks"]]
        assert [(m["kind"], m["status"], m["by"]) for m in marks] == [
            ("resolved", "current", "architect")]
        assert "we moved to JWTs" in marks[0]["reason"]


async def test_rest_lists_a_dispute_refuses_a_stale_version_and_settles_it(
        deployment: Deployment) -> None:
    space = deployment.space("queue-rest")
    lead = deployment.key("lead", {space: "rw"})
    reader = deployment.key("reader", {space: "r"})
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {lead}"}) as http:
        added = (await http.post("/v1/memories", json={
            "content": "The cache keeps entries for ten minutes", "space": space})).json()
        memory = added["memories"][0]["id"]
        marked = await http.post(f"/v1/memories/{memory}/status", json={
            "status": "disputed", "reason": "the load test saw 20 minutes", "space": space})
        assert marked.status_code == 200
        listed = (await http.get("/v1/conflicts", params={"space": space})).json()
        [conflict] = listed["conflicts"]
        assert (conflict["kind"], conflict["sides"][0]["id"]) == ("disputed", memory)
        assert "20 minutes" in conflict["why"]

        readers = await http.post(f"/v1/conflicts/{conflict['id']}/resolve",
                                  headers={"Authorization": f"Bearer {reader}"},
                                  json={"keep": memory, "reason": "x", "space": space})
        assert readers.status_code == 403
        stale = await http.post(f"/v1/conflicts/{conflict['id']}/resolve", json={
            "keep": memory, "reason": "x", "version": "0000000000000000", "space": space})
        assert (stale.status_code, stale.json()["error"]) == (409, "stale_version")
        missing = await http.post("/v1/conflicts/cf_000000000000000000000000/resolve", json={
            "keep": memory, "reason": "x", "space": space})
        assert (missing.status_code, missing.json()["error"]) == (404, "not_found")

        done = await http.post(f"/v1/conflicts/{conflict['id']}/resolve", json={
            "keep": memory, "reason": "measured again: ten minutes",
            "version": conflict["version"], "space": space})
        assert done.status_code == 200
        assert done.json()["kept"]["status"] == "current"
        assert (await http.get("/v1/conflicts", params={"space": space})).json()["open"] == 0
