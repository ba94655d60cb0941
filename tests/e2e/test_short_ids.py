"""Short ids end to end (the real app under uvicorn, the real model, the MCP client over HTTP and
REST): what search_memory shows is what the tools and REST paths take, an ambiguous prefix is
refused with the candidates and the call again, and a prefix of another space's memory answers
exactly like a missing one."""

from __future__ import annotations

import re
import uuid
from dataclasses import replace

import httpx2
import pytest

from memspace.domain.ports import WriteBatch
from tests.e2e.conftest import Deployment
from tests.support.server import data, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def test_the_short_id_a_search_shows_is_taken_by_every_memory_tool(
        deployment: Deployment) -> None:
    space = deployment.space("short")
    key = deployment.key("short-agent", {space: "rw"})
    async with mcp_client(deployment.url, key, toolsets="all") as client:
        answer = await client.call_tool("add_memory", {
            "content": "Invoices are sent on the first workday", "type": "procedure"})
        saved = data(answer)
        assert saved["status"] == "created", saved
        # the save's text names it by the short id its JSON maps the whole one to
        whole_id = saved["memories"][0]["id"]
        said = answer.content[0].text  # type: ignore[union-attr]
        assert f"[{saved['shortIds'][whole_id]}] v1" in said and whole_id not in said
        found = await client.call_tool("search_memory", {"query": "when are invoices sent?"})
        [hit] = data(found)["results"]
        # the profile as the text says it (some clients give their model this JSON instead)
        assert data(found)["profile"] == {"slug": space, "counts": data(found)["profile"]["counts"]}
        short = hit["shortId"]
        assert len(short) == 8 and hit["id"].startswith(short) and len(hit["id"]) == 32
        assert f"1. [{short}] v1 (procedure)" in found.content[0].text  # type: ignore[union-attr]
        got = data(await client.call_tool("getMemory", {"memoryId": short}))
        assert got["memory"]["id"] == hit["id"]
        many = data(await client.call_tool("getMemory", {"ids": [short]}))
        assert [m["id"] for m in many["memories"]] == [hit["id"]] and many["missing"] == []
        marked = data(await client.call_tool("mark_memory", {
            "memoryId": short, "status": "disputed", "reason": "finance says the second"}))
        assert marked["memory"]["id"] == hit["id"]
        corrected = await client.call_tool("correct_memory", {
            "memoryId": short, "content": "Invoices are sent on the second workday",
            "reason": "finance moved it", "expectedVersion": marked["memory"]["version"]})
        fixed = data(corrected)
        new = fixed["memories"][0]
        assert fixed["superseded"] == [hit["id"]]
        told = corrected.content[0].text  # type: ignore[union-attr]
        assert f"Superseded (now inactive): {short}" in told and hit["id"] not in told
        assert f"[{fixed['shortIds'][new['id']]}] v{new['version']}" in told
        revisions = data(await client.call_tool("list_memory_revisions", {"memoryId": new["id"][:10]}))
        assert [v["id"] for v in revisions["revisions"]] == [hit["id"], new["id"]]
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        read = await http.get(f"/v1/memories/{new['id'][:8]}", params={"space": space})
        assert read.status_code == 200 and read.json()["memory"]["id"] == new["id"]
        whole = (await http.post("/v1/search", json={"query": "invoices", "space": space,
                                                     "includeProfile": True})).json()
        assert {"openConflicts", "recentMemories"} <= set(whole["profile"])  # REST: the whole one


async def test_an_ambiguous_prefix_is_refused_with_its_candidates_and_a_foreign_one_is_missing(
        deployment: Deployment) -> None:
    space, theirs = deployment.space("twins"), deployment.space("theirs")
    key = deployment.key("twins-agent", {space: "rw"})
    app = deployment.app
    head = uuid.uuid4().hex[:8]
    for slug, ids in ((space, (head + "1a", head + "1b")), (theirs, (head + "2c",))):
        stored = app.store.directory.get_space_by_slug(slug)
        assert stored is not None
        made = [replace(app.memories.new_memory(stored.id, f"Twin fact {i}", "general", "test"),
                        id=i + "0" * 22) for i in ids]
        app.store.writes.write(WriteBatch(stored.id, made))
    async with mcp_client(deployment.url, key) as client:
        refused = await client.call_tool("getMemory", {"memoryId": head})
        assert refused.is_error
        told = refused.structured_content
        assert told is not None and told["code"] == "ambiguous_id"
        assert told["candidates"] == [head + "1a", head + "1b"]
        assert told["example"] == {"name": "getMemory", "arguments": {"memoryId": head + "1a"}}
        again = data(await client.call_tool("getMemory", told["example"]["arguments"]))
        assert again["memory"]["content"] == "Twin fact " + head + "1a"
        foreign = await client.call_tool("getMemory", {"memoryId": head + "2c"})
        missing = await client.call_tool("getMemory", {"memoryId": head + "3d"})
        assert foreign.is_error and missing.is_error
        assert (foreign.structured_content or {})["code"] == "not_found"
        assert ((foreign.structured_content or {})["message"].replace(head + "2c", "X")
                == (missing.structured_content or {})["message"].replace(head + "3d", "X"))
    async with httpx2.AsyncClient(base_url=deployment.url,
                                  headers={"Authorization": f"Bearer {key}"}) as http:
        ambiguous = await http.get(f"/v1/memories/{head}", params={"space": space})
        assert ambiguous.status_code == 422 and ambiguous.json()["error"] == "ambiguous_id"
        assert ambiguous.json()["candidates"] == [head + "1a", head + "1b"]


def _shown(text: str, content: str) -> str:
    """The short id a text names the memory saying `content` by: the `[id]` of the line above
    its quoted content."""
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if content in line)
    return re.findall(r"\[([0-9a-f]{8,})\]", "\n".join(lines[:at]))[-1]


async def test_the_short_ids_listings_changes_marks_and_forgets_show_are_taken_back(
        deployment: Deployment) -> None:
    space = deployment.space("short-lists")
    key = deployment.key("short-lister", {space: "rw"})
    start = "2000-01-01T00:00:00Z"
    async with mcp_client(deployment.url, key, toolsets="all") as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "Payroll runs on the 25th", "type": "procedure", "space": space}))
        whole = saved["memories"][0]["id"]

        listed = await client.call_tool("listMemories", {"space": space})
        text = listed.content[0].text  # type: ignore[union-attr]
        short = _shown(text, "Payroll runs on the 25th")
        assert len(short) >= 8 and whole.startswith(short) and whole not in text
        assert [m["shortId"] for m in data(listed)["memories"]] == [short]  # the JSON keeps both
        assert data(listed)["memories"][0]["id"] == whole

        marked = await client.call_tool("mark_memory", {
            "memoryId": short, "status": "disputed", "reason": "HR says the 24th", "space": space})
        said = marked.content[0].text  # type: ignore[union-attr]
        assert f"[{short}] v" in said and whole not in said
        assert data(marked)["memory"]["shortId"] == short

        changes = await client.call_tool("get_changes_since", {"since": start, "space": space})
        text = changes.content[0].text  # type: ignore[union-attr]
        assert _shown(text, "Payroll runs on the 25th") == short and whole not in text
        assert [c["shortId"] for c in data(changes)["changes"]] == [short]

        fixed = data(await client.call_tool("correct_memory", {
            "memoryId": _shown(text, "Payroll runs on the 25th"), "space": space,
            "content": "Payroll runs on the 24th", "reason": "HR moved it"}))
        new = fixed["memories"][0]["id"]
        feed = await client.call_tool("listMemories", {"since": start, "space": space})
        text = feed.content[0].text  # type: ignore[union-attr]
        assert whole not in text and new not in text
        assert f"[superseded by {_shown(text, 'Payroll runs on the 24th')}]" in text
        later = _shown(text, "Payroll runs on the 24th")
        assert {m["id"]: m["shortId"] for m in data(feed)["changes"]}[new] == later

        forgot = await client.call_tool("add_memory", {
            "action": "forget", "memoryId": later, "reason": "payroll moved to the provider",
            "space": space})
        said = forgot.content[0].text  # type: ignore[union-attr]
        assert said.startswith(f"Forgotten (kept as history): [{later}]") and new not in said
        assert data(forgot)["memory"] == {**data(forgot)["memory"], "id": new, "shortId": later}
        gone = data(await client.call_tool("getMemory", {"memoryId": later, "space": space}))
        assert gone["memory"]["active"] is False
