"""End to end over MCP (the real app under uvicorn, the real embedding model, the mcp Client
over streamable HTTP): types and statuses, restatement and conflict, patches, resuming with
get_changes_since, and get_context's sections under a tight budget (docs/lifecycle.md)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from memspace.domain.ports import WriteBatch
from memspace.services.access.access import AccessService
from memspace.services.memories.memories import AddRequest
from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

NEW_TOOLS = {"mark_memory", "patch_memory", "getMemories", "get_changes_since",
             "list_memory_revisions", "rename_category"}


async def test_an_agent_resumes_another_agents_work_page_by_page_through_a_tie(
        deployment: Deployment) -> None:
    space = deployment.space("resume")
    first, second = (deployment.key(n, {space: "rw"}) for n in ("agent-one", "agent-two"))
    async with mcp_client(deployment.url, first) as one, \
            mcp_client(deployment.url, second, toolsets="all") as two:
        tools = {t.name for t in (await two.list_tools()).tools}
        assert tools >= NEW_TOOLS - {"getMemories"}  # folded into getMemory
        start = data(await one.call_tool("add_memory", {
            "content": "The billing export runs nightly at 02:00 UTC", "type": "procedure"}))
        begin = start["memories"][0]["createdAt"]
        # A bulk write by the first agent's side: four memories in one commit, one millisecond.
        stored = deployment.app.store.directory.get_space_by_slug(space)
        assert stored is not None
        tied = [deployment.app.memories.new_memory(stored.id, f"Tied import line {n}",
                                                    "import", "agent-one") for n in range(4)]
        at = tied[0].created_at
        deployment.app.store.writes.write(WriteBatch(stored.id, [replace(m, created_at=at)
                                                          for m in tied]))

        seen: list[str] = []
        page = data(await two.call_tool("get_changes_since", {"since": begin, "limit": 2}))
        seen += [c["id"] for c in page["changes"]]
        pages = 1
        while page["hasMore"]:
            page = data(await two.call_tool("get_changes_since",
                                            {"cursor": page["cursor"], "limit": 2}))
            seen += [c["id"] for c in page["changes"]]
            pages += 1
        assert pages >= 3
        assert seen == [start["memories"][0]["id"], *sorted(m.id for m in tied)]

        patched = data(await one.call_tool("patch_memory", {
            "memoryId": start["memories"][0]["id"], "append": "and retries at 03:00",
            "expectedVersion": 1}))
        later = data(await two.call_tool("get_changes_since", {"cursor": page["cursor"]}))
        kinds = {c["id"]: c["change"] for c in later["changes"]}
        assert kinds == {start["memories"][0]["id"]: "superseded",
                         patched["memories"][0]["id"]: "updated"}
        refused = await two.call_tool("get_changes_since", {"cursor": page["cursor"],
                                                            "types": ["decision"]})
        assert "invalid_input" in error_text(refused)


async def test_a_conflict_is_resolved_both_ways(deployment: Deployment) -> None:
    space = deployment.space("conflict")
    key = deployment.key("architect", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        first = data(await client.call_tool("add_memory", {
            "content": "Sessions use opaque tokens instead of JWTs", "type": "decision"}))
        first_id = first["memories"][0]["id"]
        fuller = data(await client.call_tool("add_memory", {
            "content": "Sessions use opaque tokens instead of JWTs, so a stolen token can be "
                       "revoked at once", "type": "decision"}))
        assert fuller["status"] == "updated" and fuller["superseded"] == [first_id]
        head = fuller["memories"][0]["id"]

        clash = data(await client.call_tool("add_memory", {
            "content": "Sessions use JWTs instead of opaque tokens", "type": "decision"}))
        assert clash["status"] == "conflict" and clash["memories"] == []
        assert clash["conflict"]["memory"]["id"] == head
        replaces = clash["conflict"]["resolve"]["replaces"]["arguments"]
        assert replaces["supersedes"] == [head]
        resolved = data(await client.call_tool("add_memory", replaces))
        assert resolved["status"] == "created" and resolved["superseded"] == [head]
        old = data(await client.call_tool("getMemory", {"memoryId": head}))["memory"]
        assert (old["status"], old["supersededBy"]) == ("superseded",
                                                        resolved["memories"][0]["id"])

        again = data(await client.call_tool("add_memory", {
            "content": "Sessions use opaque tokens instead of JWTs", "type": "decision"}))
        assert again["status"] == "conflict"
        both = data(await client.call_tool("add_memory",
                                           again["conflict"]["resolve"]["bothHold"]["arguments"]))
        assert both["status"] == "created" and both["superseded"] == []
        current = data(await client.call_tool("listMemories", {"types": ["decision"],
                                                               "statuses": ["current"]}))
        assert {m["id"] for m in current["memories"]} == {resolved["memories"][0]["id"],
                                                           both["memories"][0]["id"]}


async def test_a_patch_racing_a_correction_leaves_one_winner(deployment: Deployment) -> None:
    space = deployment.space("race")
    a, b = (deployment.key(n, {space: "rw"}) for n in ("patcher", "corrector"))
    async with mcp_client(deployment.url, a) as pa, mcp_client(deployment.url, b) as pb:
        saved = data(await pa.call_tool("add_memory", {
            "content": "Releases need two approvals", "type": "constraint"}))
        memory_id = saved["memories"][0]["id"]
        patch, fix = await asyncio.gather(
            pa.call_tool("patch_memory", {"memoryId": memory_id, "expectedVersion": 1,
                                          "replace": {"old": "two", "new": "three"}}),
            pb.call_tool("correct_memory", {"memoryId": memory_id, "expectedVersion": 1,
                                            "content": "Releases need one approval",
                                            "reason": "policy change"}))
        outcomes = [r for r in (patch, fix) if not r.is_error]
        assert len(outcomes) == 1
        loser = patch if patch.is_error else fix
        assert "stale_version" in error_text(loser)
        winner = outcomes[0].structured_content["memories"][0]
        revisions = data(await pb.call_tool("list_memory_revisions", {"memoryId": memory_id}))
        assert [r["id"] for r in revisions["revisions"]] == [memory_id, winner["id"]]
        absent = await pa.call_tool("patch_memory", {
            "memoryId": winner["id"], "replace": {"old": "no such words", "new": "x"}})
        assert "invalid_input" in error_text(absent) and "does not occur" in error_text(absent)


async def test_the_conflict_warning_survives_a_budget_too_small_for_the_constraints(
        deployment: Deployment) -> None:
    space = deployment.space("budget")
    key = deployment.key("lead", {space: "rw"})
    deployment.app.admin.set_space(space, instructions="Never deploy on Fridays.")
    operator = AccessService.operator()
    for n in range(6):  # alike, so `force`: each holds beside the others
        added = deployment.app.memories.submit(operator, AddRequest(
            f"Constraint {n}: every service in zone {n} must " + " ".join(
                f"honour rule {n}.{i} of the platform handbook" for i in range(12)),
            space, memory_type="constraint", force=True))
        assert added.status == "created"
    async with mcp_client(deployment.url, key) as client:
        doubted = data(await client.call_tool("add_memory", {
            "content": "The database may be restarted during business hours",
            "type": "decision"}))["memories"][0]["id"]
        marked = data(await client.call_tool("mark_memory", {
            "memoryId": doubted, "status": "disputed", "reason": "ops says only at night"}))
        assert marked["memory"]["status"] == "disputed"
        brief = data(await client.call_tool("get_context", {"maxTokens": 300}))
    text, meta = brief["context"], brief["meta"]
    assert "Never deploy on Fridays." in text
    assert "## Unresolved conflicts" in text and f"[{doubted[:8]}]" in text  # by its short id
    assert meta["spent"] <= 300
    dropped = {e["section"] for e in meta["omittedEntries"]}
    assert "constraints" in dropped and "conflicts" not in dropped


async def test_the_same_calls_over_rest(deployment: Deployment) -> None:
    import httpx2

    space = deployment.space("rest-life")
    key = deployment.key("rest-agent", {space: "rw"})
    async with httpx2.AsyncClient(base_url=deployment.url, timeout=30,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        first = await http.post("/v1/memories", json={
            "content": "The queue is RabbitMQ", "type": "architecture", "space": space})
        assert first.status_code == 201
        memory_id = first.json()["memories"][0]["id"]
        clash = await http.post("/v1/memories", json={
            "content": "The queue is Kafka", "type": "architecture", "space": space})
        assert clash.status_code == 409 and clash.json()["conflict"]["memory"]["id"] == memory_id
        marked = await http.post(f"/v1/memories/{memory_id}/status", json={
            "status": "disputed", "reason": "load test", "space": space, "expectedVersion": 1})
        assert marked.status_code == 200 and marked.json()["memory"]["status"] == "disputed"
        patched = await http.post(f"/v1/memories/{memory_id}/patch", json={
            "append": "with quorum queues", "space": space, "expectedVersion": 2})
        assert patched.status_code == 200
        new_id = patched.json()["memories"][0]["id"]
        batch = (await http.post("/v1/memories/batch", json={
            "ids": [memory_id, new_id, "missing"], "space": space})).json()
        assert [m["id"] for m in batch["memories"]] == [memory_id, new_id]
        assert batch["missing"] == ["missing"]
        line = (await http.get(f"/v1/memories/{new_id}/revisions",
                               params={"space": space})).json()
        assert [r["id"] for r in line["revisions"]] == [memory_id, new_id]
        changes = (await http.get("/v1/changes", params={
            "since": "2000-01-01T00:00:00Z", "space": space, "types": ["architecture"]})).json()
        assert {c["id"]: c["change"] for c in changes["changes"]} == {
            memory_id: "superseded", new_id: "updated"}
        stale = await http.post(f"/v1/memories/{new_id}/patch", json={
            "append": "again", "space": space, "expectedVersion": 1})
        assert stale.status_code == 409
        renamed = await http.post("/v1/categories/rename", json={
            "old": "general", "new": "messaging", "space": space})
        assert renamed.status_code == 200 and renamed.json()["renamed"] == 1


async def test_a_renamed_category_is_searchable_under_its_new_name(deployment: Deployment) -> None:
    space = deployment.space("rename")
    key = deployment.key("librarian", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        for text in ("Terraform state lives in an S3 bucket", "Cluster nodes run Ubuntu 24.04"):
            data(await client.call_tool("add_memory", {"content": text, "category": "infra"}))
        # searched once before the rename, so the server's vector cache holds the space
        before = data(await client.call_tool("search_memory", {"query": "terraform state",
                                                               "category": "infra"}))
        assert before["results"]
        renamed = data(await client.call_tool("rename_category", {"old": "infra",
                                                                  "new": "platform"}))
        assert renamed["renamed"] == 2
        after = data(await client.call_tool("search_memory", {"query": "terraform state",
                                                              "category": "platform"}))
        assert after["results"][0]["content"] == "Terraform state lives in an S3 bucket"
        gone = data(await client.call_tool("search_memory", {"query": "terraform state",
                                                             "category": "infra"}))
        assert gone["results"] == []
