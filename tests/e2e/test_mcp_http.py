"""End to end: the real app under uvicorn, the real model, mcp 2.x Client over streamable HTTP."""

from __future__ import annotations

import httpx2
import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

ALL_TOOLS = {"search_memory", "add_memory", "correct_memory", "listMemories", "listDocuments",
             "getDocument", "listSpaces", "whoAmI", "setActiveSpace", "getMemory"}


async def test_tools_are_listed_with_instructions(deployment: Deployment) -> None:
    space = deployment.space("tools")
    async with mcp_client(deployment.url, deployment.key("lister", {space: "r"}),
                          toolsets="all") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= ALL_TOOLS
    assert "BEFORE" in (tools["search_memory"].description or "")
    assert tools["search_memory"].annotations and tools["search_memory"].annotations.read_only_hint


async def test_two_keys_on_one_space_see_each_others_writes_at_once(deployment: Deployment) -> None:
    space = deployment.space("shared")
    coder = deployment.key("coding-agent", {space: "rw"})
    researcher = deployment.key("research-agent", {space: "rw"})
    async with mcp_client(deployment.url, coder) as a, mcp_client(deployment.url, researcher) as b:
        saved = data(await a.call_tool("add_memory", {
            "content": "The payments service retries webhooks three times with exponential backoff",
            "category": "architecture"}))
        assert saved["status"] == "created" and saved["mode"] == "flat"
        found = data(await b.call_tool("search_memory", {"query": "how are webhooks retried?"}))
        assert found["results"][0]["id"] == saved["memories"][0]["id"]
        assert found["results"][0]["who"] == "key coding-agent"  # as the text names the writer
        assert found["searchMode"] == "hybrid" and found["profile"]["counts"]["activeMemories"] == 1
        data(await b.call_tool("add_memory", {"content": "Webhook signatures use HMAC-SHA256"}))
        listed = data(await a.call_tool("listMemories", {}))
        assert next(m["content"] for m in listed["memories"]) == "Webhook signatures use HMAC-SHA256"


async def test_a_key_of_another_space_sees_nothing_through_any_tool(deployment: Deployment) -> None:
    secret = deployment.space("secret")
    elsewhere = deployment.space("elsewhere")
    owner = deployment.key("owner", {secret: "rw"})
    outsider = deployment.key("outsider", {elsewhere: "rw"})
    async with mcp_client(deployment.url, owner) as a:
        saved = data(await a.call_tool("add_memory", {"content": "Acquisition target is Foobar Inc"}))
    memory_id = saved["memories"][0]["id"]
    missing = deployment.space("x")[:-9] + "-never-made"
    async with mcp_client(deployment.url, outsider) as c:
        own = data(await c.call_tool("search_memory", {"query": "acquisition target"}))
        assert own["results"] == [] and own["space"] == elsewhere
        spaces = data(await c.call_tool("listSpaces", {}))
        assert [s["slug"] for s in spaces["spaces"]] == [elsewhere]
        me = data(await c.call_tool("whoAmI", {}))
        assert me["grants"] == {elsewhere: "readwrite"}
        # Naming the secret space answers exactly like naming a space that does not exist.
        for tool, args in [
            ("search_memory", {"query": "acquisition"}),
            ("listMemories", {}),
            ("listDocuments", {}),
            ("add_memory", {"content": "planting a fact"}),
            ("setActiveSpace", {}),
        ]:
            denied = error_text(await c.call_tool(tool, {**args, "space": secret}))
            absent = error_text(await c.call_tool(tool, {**args, "space": missing}))
            assert denied.replace(secret, "S") == absent.replace(missing, "S")
            assert "not found" in denied
        # Its memory ids are unknown here too.
        for tool, args in [("correct_memory", {"memoryId": memory_id, "content": "Target is Baz"}),
                           ("add_memory", {"action": "forget", "memoryId": memory_id})]:
            assert "no memory" in error_text(await c.call_tool(tool, args))
    async with mcp_client(deployment.url, owner) as a:
        still = data(await a.call_tool("search_memory", {"query": "acquisition target"}))
        assert [r.get("active", True) for r in still["results"]] == [True]
        assert still["profile"]["counts"]["activeMemories"] == 1


async def test_a_read_key_cannot_add_and_the_store_is_unchanged(deployment: Deployment) -> None:
    space = deployment.space("readonly")
    reader = deployment.key("reader", {space: "r"})
    async with mcp_client(deployment.url, reader) as client:
        message = error_text(await client.call_tool("add_memory", {"content": "I was here"}))
        assert "can only read" in message and "read-write grant" in message
        listed = data(await client.call_tool("listMemories", {}))
        assert listed["memories"] == []


async def test_correct_memory_leaves_one_active_head_and_the_old_one_as_history(
    deployment: Deployment,
) -> None:
    space = deployment.space("corrections")
    agent = deployment.key("agent", {space: "rw"})
    human = deployment.key("teammate", {space: "rw"})
    async with mcp_client(deployment.url, agent) as a, mcp_client(deployment.url, human) as h:
        old = data(await a.call_tool("add_memory", {"content": "Production database is MySQL 5.7"}))
        old_id = old["memories"][0]["id"]
        fixed = data(await h.call_tool("correct_memory", {
            "memoryId": old_id, "content": "Production database is PostgreSQL 16",
            "reason": "migrated in March"}))
        new_id = fixed["memories"][0]["id"]
        assert fixed["superseded"] == [old_id]
        assert fixed["relations"] == [{**fixed["relations"][0], "from": new_id, "to": old_id,
                                       "type": "UPDATES", "reason": "migrated in March"}]
        found = data(await a.call_tool("search_memory", {"query": "production database"}))
        heads = [r for r in found["results"] if r.get("active", True)]
        assert [r["id"] for r in heads] == [new_id]
        assert old_id not in [r["id"] for r in found["results"]]
        related = heads[0]["relatedMemories"]
        assert [(r["id"], r["active"], r["relation"]) for r in related] == [(old_id, False, "UPDATES")]
        assert related[0]["supersededBy"] == new_id
        whole = data(await a.call_tool("search_memory", {"query": "production database",
                                                         "fullRecords": True}))
        assert whole["results"][0]["relatedMemories"][0]["invalidatedBy"] == new_id
        history = data(await a.call_tool("getMemory", {"memoryId": old_id}))
        assert history["memory"]["invalidatedBy"] == new_id
        assert [(r["from"], r["type"], r["createdBy"]) for r in history["relations"]] == [
            (new_id, "UPDATES", "teammate")]
        again = error_text(await a.call_tool("correct_memory", {
            "memoryId": old_id, "content": "Production database is Oracle"}))
        assert "already replaced" in again


async def test_keyword_tolerates_typos_but_not_short_word_lookalikes(deployment: Deployment) -> None:
    space = deployment.space("keywords")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        for content in ["The schema migration runs before every deploy",
                        "The plant in the lobby needs water on Mondays",
                        "The plan for Q3 is to hire two engineers"]:
            data(await client.call_tool("add_memory", {"content": content}))
        typo = data(await client.call_tool("search_memory", {"keyword": "migraiton"}))
        assert typo["searchMode"] == "keyword"
        assert [r["content"] for r in typo["results"]] == [
            "The schema migration runs before every deploy"]
        plan = data(await client.call_tool("search_memory", {"keyword": "plan"}))
        assert [r["content"] for r in plan["results"]] == ["The plan for Q3 is to hire two engineers"]


async def test_forget_deactivates_with_a_reason_and_search_stops_returning_it(
    deployment: Deployment,
) -> None:
    space = deployment.space("forget")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key, header="x-api-key") as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "The office guest wifi is called acme-lobby"}))
        gone = data(await client.call_tool("add_memory", {
            "action": "forget", "memoryId": saved["memories"][0]["id"], "reason": "renamed"}))
        assert gone["memory"]["active"] is False and gone["memory"]["forgetReason"] == "renamed"
        found = data(await client.call_tool("search_memory", {"query": "guest wifi name"}))
        assert found["results"] == []
        history = data(await client.call_tool("search_memory", {
            "query": "guest wifi name", "includeInactive": True}))
        assert [r["active"] for r in history["results"]] == [False]


async def test_duplicates_are_reported_not_stored(deployment: Deployment) -> None:
    space = deployment.space("dupes")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        first = data(await client.call_tool("add_memory", {"content": "Standup is at 9:30"}))
        again = data(await client.call_tool("add_memory", {"content": "  standup is at 9:30 "}))
        assert again["status"] == "duplicate"
        assert again["memories"][0]["id"] == first["memories"][0]["id"]
        assert len(data(await client.call_tool("listMemories", {}))["memories"]) == 1


async def test_set_active_space_moves_where_calls_land(deployment: Deployment) -> None:
    one, two = deployment.space("one"), deployment.space("two")
    key = deployment.key("switcher", {one: "rw", two: "rw"})
    async with mcp_client(deployment.url, key) as client:
        assert "no space given" in error_text(await client.call_tool("add_memory", {"content": "x"}))
        data(await client.call_tool("setActiveSpace", {"space": two}))
        saved = data(await client.call_tool("add_memory", {"content": "Lives in space two"}))
        assert saved["space"] == two
        me = data(await client.call_tool("whoAmI", {}))
        assert me["activeSpace"] == two
    async with mcp_client(deployment.url, key) as again:  # persists for the key
        assert data(await again.call_tool("listMemories", {}))["space"] == two


async def test_paging_walks_every_memory_once_and_rejects_foreign_cursors(
    deployment: Deployment,
) -> None:
    space = deployment.space("paging")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        for i in range(7):
            data(await client.call_tool("add_memory", {"content": f"Fact number {i}", "space": space}))
        seen, cursor = [], None
        while True:
            args = {"space": space, "limit": 3} | ({"cursor": cursor} if cursor else {})
            page = data(await client.call_tool("listMemories", args))
            seen += [m["content"] for m in page["memories"]]
            cursor = page["nextCursor"]
            if not cursor:
                break
        assert seen == [f"Fact number {i}" for i in reversed(range(7))]
        first = data(await client.call_tool("listMemories", {"space": space, "limit": 2}))
        foreign = error_text(await client.call_tool("listMemories", {
            "space": space, "limit": 2, "category": "other", "cursor": first["nextCursor"]}))
        assert "different listing" in foreign
        damaged = error_text(await client.call_tool("listMemories", {"space": space, "cursor": "zz!"}))
        assert "damaged" in damaged


async def test_bad_input_gets_clear_errors_and_changes_nothing(deployment: Deployment) -> None:
    space = deployment.space("badinput")
    key = deployment.key("agent", {space: "rw"})
    limit = deployment.app.settings.max_memory_chars
    async with mcp_client(deployment.url, key) as client:
        assert "empty" in error_text(await client.call_tool("add_memory", {"content": "   \n\t"}))
        assert "empty" in error_text(await client.call_tool("add_memory", {}))
        big = error_text(await client.call_tool("add_memory", {"content": "x" * (limit + 1)}))
        assert f"{limit:,}" in big and "MEMSPACE_MAX_MEMORY_CHARS" in big
        assert "no memory" in error_text(await client.call_tool("correct_memory", {
            "memoryId": "does-not-exist", "content": "new"}))
        assert "no document" in error_text(await client.call_tool("getDocument", {
            "documentId": "does-not-exist"}))
        assert "at least one of" in error_text(await client.call_tool("search_memory", {}))
        listed = data(await client.call_tool("listMemories", {}))
        assert listed["memories"] == []


@pytest.mark.parametrize("headers, reason", [
    ({}, "no API key"),
    ({"Authorization": "Bearer not-a-key"}, "malformed"),
    ({"Authorization": "Bearer msk_abcdefgh_" + "A" * 43}, "unknown API key"),
    ({"X-Api-Key": "msk_abcdefgh_" + "B" * 43}, "unknown API key"),
])
async def test_bad_keys_get_401_before_mcp(deployment: Deployment, headers: dict[str, str],
                                          reason: str) -> None:
    async with httpx2.AsyncClient(headers=headers) as http:
        response = await http.post(f"{deployment.url}/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert response.status_code == 401
    assert reason in response.json()["message"]
    assert response.headers["www-authenticate"].startswith('Bearer realm="memspace"')


async def test_a_revoked_key_is_refused_at_once(deployment: Deployment) -> None:
    space = deployment.space("revoke")
    key = deployment.key("temp", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        data(await client.call_tool("whoAmI", {}))
    deployment.app.admin.revoke_key(key[:12])
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
        response = await http.post(f"{deployment.url}/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert response.status_code == 401 and "revoked" in response.json()["message"]
