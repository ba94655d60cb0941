"""The tool list as clients receive it over HTTP: a short default list a model pays for on every
turn, toolsets on request (URL, key, server), the views only for hosts that draw them, and
every tool callable by its name whether listed or not."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from memspace.domain.models import Access
from memspace.mcp.toolsets import DEFAULT, FOLDED, TOOLSETS
from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

# The budget of the default list: tool count, and characters of the `tools` array as compact JSON.
MAX_TOOLS = 12
MAX_CHARS = 16_000
VIEWS = {"select_space_ui", "guided_save_ui", "upload_file_ui", "memory_graph_ui", "conflicts_ui"}
EVERY_TOOLSET = {name for names in TOOLSETS.values() for name in names}


def size(tools: list[Any]) -> int:
    wire = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]
    return len(json.dumps(wire, separators=(",", ":")))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_views_gets_the_default_list_within_budget(
        deployment: Deployment, mode: str) -> None:
    space = deployment.space("budget")
    async with mcp_client(deployment.url, deployment.key("plain", {space: "rw"}),
                          mode=mode) as client:
        tools = (await client.list_tools()).tools
    names = [t.name for t in tools]
    assert names == list(DEFAULT)
    assert len(tools) <= MAX_TOOLS and size(tools) <= MAX_CHARS, (len(tools), size(tools))
    assert {"search_memory", "add_memory", "get_context"} <= set(names)
    assert not [n for n in names if n.endswith("_ui")]
    assert "START HERE" in (tools[0].description or "")
    # Compact schemas: no generated titles, optional arguments as their type.
    search = next(t for t in tools if t.name == "search_memory").input_schema
    assert "title" not in search and "title" not in search["properties"]["query"]
    assert search["properties"]["query"]["type"] == "string"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_host_that_draws_views_also_gets_the_views(deployment: Deployment,
                                                            mode: str) -> None:
    space = deployment.space("host")
    async with mcp_client(deployment.url, deployment.key("host", {space: "rw"}),
                          apps=True, mode=mode) as client:
        first = {t.name: t for t in (await client.list_tools()).tools}
        again = {t.name for t in (await client.list_tools()).tools}  # a later request too
    assert set(first) >= VIEWS and set(first) == again
    assert set(DEFAULT) <= set(first)
    for name, tool in first.items():
        if name.endswith("_ui") and name not in VIEWS:  # a view's helper: never the model's
            assert tool.meta is not None and tool.meta["ui"]["visibility"] == ["app"], name


async def test_a_session_id_the_server_did_not_issue_for_views_shows_no_views(
        deployment: Deployment) -> None:
    """Only an `initialize` that declared MCP Apps earns the id that lists the views."""
    space = deployment.space("sessions")
    key = deployment.key("raw", {space: "r"})
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "plain", "version": "1"}}}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        plain = await http.post(f"{deployment.url}/mcp", json=init)
        assert plain.status_code == 200 and "mcp-session-id" not in plain.headers
        listed = await http.post(f"{deployment.url}/mcp", json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
            headers={"Mcp-Session-Id": "made-up-by-the-client"})
    assert listed.status_code == 200
    assert "_ui" not in listed.text and "search_memory" in listed.text


async def test_toolsets_widen_the_list_from_the_url_the_key_or_the_server(
        deployment: Deployment) -> None:
    space = deployment.space("widen")
    async with mcp_client(deployment.url, deployment.key("all", {space: "rw"}),
                          toolsets="all") as client:
        every = {t.name for t in (await client.list_tools()).tools}
    assert every == set(DEFAULT) | EVERY_TOOLSET  # every capability once, no view
    assert not set(FOLDED) & every
    async with mcp_client(deployment.url, deployment.key("some", {space: "rw"}),
                          toolsets="history,code") as client:
        some = {t.name for t in (await client.list_tools()).tools}
    assert some == set(DEFAULT) | set(TOOLSETS["history"]) | set(TOOLSETS["code"])
    # A key's own choice, and the URL's before it.
    own = deployment.app.admin.create_key("reviewer", {space: Access.READWRITE},
                                          toolsets="review").raw
    async with mcp_client(deployment.url, own) as client:
        reviewed = {t.name for t in (await client.list_tools()).tools}
    assert reviewed == set(DEFAULT) | set(TOOLSETS["review"])
    async with mcp_client(deployment.url, own, toolsets="documents") as client:
        asked = {t.name for t in (await client.list_tools()).tools}
    assert asked == set(DEFAULT) | set(TOOLSETS["documents"])


async def test_an_unknown_toolset_in_the_url_says_which_exist(deployment: Deployment) -> None:
    space = deployment.space("unknown")
    async with mcp_client(deployment.url, deployment.key("typo", {space: "r"}),
                          toolsets="histroy") as client:
        with pytest.raises(MCPError, match=r"unknown toolset .histroy.*history"):
            await client.list_tools()


async def test_an_unlisted_tool_answers_by_name_with_the_same_rights(
        deployment: Deployment) -> None:
    space = deployment.space("unlisted")
    writer = deployment.key("writer", {space: "rw"})
    reader = deployment.key("reader", {space: "r"})
    async with mcp_client(deployment.url, writer, mode="legacy") as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "The nightly export lands in the reports bucket", "category": "ops"}))
        memory_id = saved["memories"][0]["id"]
        me = data(await client.call_tool("whoAmI", {}))
        assert me["grants"] == {space: "readwrite"}
        listed = data(await client.call_tool("listMemories", {}))
        assert [m["id"] for m in listed["memories"]] == [memory_id]
        # The folded name answers as the tool it was folded into.
        batch = data(await client.call_tool("getMemories", {"ids": [memory_id, "nope"]}))
        folded = data(await client.call_tool("getMemory", {"ids": [memory_id, "nope"]}))
        assert batch == folded and folded["missing"] == ["nope"]
        assert [m["id"] for m in folded["memories"]] == [memory_id]
    async with mcp_client(deployment.url, reader) as client:
        refused = await client.call_tool("rename_category", {"old": "ops", "new": "operations"})
        assert "forbidden" in error_text(refused)
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "forbidden"


async def test_get_memory_takes_one_id_or_several_not_both(deployment: Deployment) -> None:
    space = deployment.space("either")
    async with mcp_client(deployment.url, deployment.key("either", {space: "rw"})) as client:
        both = await client.call_tool("getMemory", {"memoryId": "a", "ids": ["b"]})
        neither = await client.call_tool("getMemory", {})
    for refused in (both, neither):
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "invalid_input"
        assert "`memoryId`" in error_text(refused) and "`ids`" in error_text(refused)


async def test_get_memory_reads_one_or_several_as_they_stood_at_known_at(
        deployment: Deployment) -> None:
    space = deployment.space("asknown")
    async with mcp_client(deployment.url, deployment.key("auditor", {space: "rw"})) as client:
        first = data(await client.call_tool("add_memory", {
            "content": "The on-call pager is owned by Dana"}))["memories"][0]
        before = first["createdAt"]
        fixed = data(await client.call_tool("correct_memory", {
            "memoryId": first["id"], "content": "The on-call pager is owned by Kenji",
            "expectedVersion": 1}))["memories"][0]
        then = data(await client.call_tool("getMemory", {"memoryId": first["id"],
                                                         "knownAt": before}))
        assert then["memory"]["active"] is True and then["memory"]["status"] == "current"
        assert then["memory"].get("supersededBy") is None
        both = data(await client.call_tool("getMemory", {"ids": [first["id"], fixed["id"]],
                                                         "knownAt": before}))
        assert [m["id"] for m in both["memories"]] == [first["id"]]
        assert both["missing"] == [fixed["id"]]
