"""Resources and the `context` prompt over MCP/HTTP, per store."""

from __future__ import annotations

import json
import re

import pytest
from mcp_types import TextResourceContents

from memspace.domain.models import MemoryFilter, Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.llm.tokens import TokenCounter
from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def _resource(client, uri: str):  # type: ignore[no-untyped-def]
    result = await client.read_resource(uri)
    content = result.contents[0]
    assert isinstance(content, TextResourceContents)
    return json.loads(content.text)


async def test_resources_show_the_callers_spaces_profile_and_history(deployment: Deployment) -> None:
    home, other, hidden = (deployment.space(s) for s in ("home", "other", "hidden"))
    key = deployment.key("reader", {home: "rw", other: "r"})
    async with mcp_client(deployment.url, key) as client:
        data(await client.call_tool("setActiveSpace", {"space": home}))
        old = data(await client.call_tool("add_memory", {"content": "Builds use Bazel"}))
        new = data(await client.call_tool("correct_memory", {
            "memoryId": old["memories"][0]["id"], "content": "Builds use Buck2"}))
        profile = await _resource(client, "memspace://profile")
        assert profile["slug"] == home and profile["counts"]["activeMemories"] == 1
        assert [m["content"] for m in profile["recentMemories"]] == ["Builds use Buck2"]
        spaces = await _resource(client, "memspace://spaces")
        assert {s["slug"]: s["access"] for s in spaces} == {home: "readwrite", other: "read"}
        assert hidden not in json.dumps(spaces)
        history = await _resource(client, f"memspace://memories/{new['memories'][0]['id']}")
        assert [r["type"] for r in history["relations"]] == ["UPDATES"]


async def test_the_context_prompt_fits_the_budget_and_names_what_it_left_out(
    deployment: Deployment,
) -> None:
    home, other = deployment.space("ctx-home"), deployment.space("ctx-other")
    key = deployment.key("agent", {home: "rw", other: "rw"})
    async with mcp_client(deployment.url, key) as client:
        for i in range(40):
            data(await client.call_tool("add_memory", {
                "space": home, "content": f"Service number {i} is owned by team {i % 7} and "
                                          f"deploys from the {['main', 'release'][i % 2]} branch"}))
        data(await client.call_tool("add_memory", {
            "space": home, "content": "Incident reviews happen every Thursday at 15:00"}))
        data(await client.call_tool("add_memory", {"space": other, "content": "Other space fact"}))
        data(await client.call_tool("setActiveSpace", {"space": home}))
        small = await client.get_prompt("context", {"maxTokens": "400"})
        text = small.messages[0].content.text  # type: ignore[union-attr]
        assert TokenCounter().count(text) <= 400
        assert f"space '{home}'" in text
        body, footer = text.split("## Omitted to fit the budget (")
        total = int(footer.split(";")[0])
        shown = body.count("- [")
        # Entries are ~30 tokens and random hex short ids tokenize to more or fewer tokens, so
        # several fit; either way the budget is used, not left mostly empty.
        assert shown >= 4 and TokenCounter().count(text) > 320
        assert shown + total == 42  # 41 in the home space, 1 in the other
        listed = re.findall(r"\b[0-9a-f]{8,32}\b", footer)  # short ids (getMemory takes them)
        assert listed and not any(i in body for i in listed)
        assert f"and {total - len(listed)} more" in footer and len(listed) < total
        ranked = await client.get_prompt("context", {"query": "when are incident reviews?",
                                                     "maxTokens": "3000"})
        full = ranked.messages[0].content.text  # type: ignore[union-attr]
        body = full.split("## Relevant notes")[1]
        assert body.split("\n")[1].endswith("Incident reviews happen every Thursday at 15:00")
        assert f"## Also readable: {other}" in full and "Other space fact" in full


async def test_catching_up_with_since_returns_each_change_exactly_once(
    deployment: Deployment,
) -> None:
    space = deployment.space("feed")
    key = deployment.key("follower", {space: "rw"})
    writer = deployment.app.access.authenticate(key)
    seen: list[tuple[str, str]] = []
    async with mcp_client(deployment.url, key) as client:
        start = data(await client.call_tool(
            "listMemories", {"space": space, "since": "2000-01-01T00:00:00Z"}))
        cursor = start["nextCursor"]
        assert start["changes"] == []

        async def catch_up() -> None:
            nonlocal cursor
            while True:
                page = data(await client.call_tool("listMemories", {
                    "space": space, "since": cursor, "limit": 100}))
                seen.extend((c["id"], c["change"]) for c in page["changes"])
                cursor = page["nextCursor"]
                if not page["changes"]:
                    return

        for burst in range(10):  # ten bursts of 100, each written in one transaction
            texts = [f"Burst {burst} fact {i}" for i in range(100)]
            deployment.app.memories.add_many(writer, texts, space)
            if burst % 3 == 2:
                await catch_up()
        stored = deployment.app.store.directory.get_space_by_slug(space)
        assert stored is not None
        made = [m.id for m in deployment.app.store.reads.list_memories(MemoryFilter(stored.id), 1000)]
        oldest = made[-1]  # read as created in the first catch-up, forgotten now
        data(await client.call_tool("add_memory", {"space": space, "action": "forget",
                                                  "memoryId": oldest, "reason": "test"}))
        await catch_up()
        foreign = error_text(await client.call_tool("listMemories", {
            "space": space, "since": cursor, "category": "other"}))
        assert "different listing" in foreign
    assert len(seen) == len(set(seen)) == 1001
    assert {i for i, kind in seen if kind == "created"} == set(made)
    assert seen[-1] == (oldest, "forgotten")


async def test_a_chain_with_two_active_heads_shows_in_the_profile(deployment: Deployment) -> None:
    space = deployment.space("conflicts")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        old = data(await client.call_tool("add_memory", {"content": "Support hours end at 17:00"}))
        new = data(await client.call_tool("add_memory", {"content": "Support hours end at 18:00"}))
        stored = deployment.app.store.directory.get_space_by_slug(space)
        assert stored is not None
        old_m = deployment.app.store.reads.get_memory(stored.id, old["memories"][0]["id"])
        new_m = deployment.app.store.reads.get_memory(stored.id, new["memories"][0]["id"])
        assert old_m is not None and new_m is not None
        deployment.app.store.writes.write(WriteBatch(stored.id, [], [
            Relation(new_m.id, old_m.id, RelationType.UPDATES, new_m.created_at, "hand")]))
        profile = await _resource(client, "memspace://profile")
        assert [(c["from"], c["to"]) for c in profile["openConflicts"]] == [(new_m.id, old_m.id)]
