"""Memories that expire, end to end over MCP (the real app under uvicorn, the real embedding
model, the mcp Client over streamable HTTP): add_memory with forgetAfter and with expiresAt,
the expiry on every read, the refusals, and the memory leaving the current view once the
store retires it (docs/lifecycle.md#expiry)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memspace.domain.bitemporal import utc
from tests.e2e.conftest import Deployment
from tests.support.server import data, error_text, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]


def _when(text: str) -> datetime:
    return utc(datetime.fromisoformat(text.replace("Z", "+00:00")))


async def test_an_agent_saves_memories_that_expire_and_they_leave_when_retired(
        deployment: Deployment) -> None:
    space = deployment.space("expiry")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        before = datetime.now(UTC)
        freeze = data(await client.call_tool("add_memory", {
            "content": "The staging deploy freeze holds during the audit", "forgetAfter": "12h"}))
        after = datetime.now(UTC)
        [saved] = freeze["memories"]
        expires = _when(saved["expiresAt"])
        assert before + timedelta(hours=12) <= expires <= after + timedelta(hours=12)

        at = "2099-06-30T17:00:00+02:00"
        closure = data(await client.call_tool("add_memory", {
            "content": "The Berlin office is closed for the summer party", "expiresAt": at}))
        [closed] = closure["memories"]
        assert _when(closed["expiresAt"]) == _when(at)

        got = await client.call_tool("getMemory", {"memoryId": saved["id"]})
        assert data(got)["memory"]["expiresAt"] == saved["expiresAt"]
        assert "expires" in got.content[0].text  # type: ignore[union-attr]
        hits = data(await client.call_tool("search_memory", {"query": "staging deploy freeze",
                                                             "includeProfile": False,
                                                             "fullRecords": True}))
        [hit] = [h for h in hits["results"] if h["id"] == saved["id"]]
        assert hit["expiresAt"] == saved["expiresAt"]

        stored = deployment.app.store.directory.get_space_by_slug(space)
        assert stored is not None
        [gone] = deployment.app.store.marks.expire_due(
            stored.id, expires + timedelta(minutes=1), "consolidator", "expired", 10)
        assert gone.id == saved["id"]

        shown = data(await client.call_tool("getMemory", {"memoryId": saved["id"]}))["memory"]
        assert (shown["status"], shown["active"]) == ("historical", False)
        assert _when(shown["invalidatedAt"]) == expires and _when(shown["validTo"]) == expires
        hits = data(await client.call_tool("search_memory", {"query": "staging deploy freeze",
                                                             "includeProfile": False}))
        assert saved["id"] not in {h["id"] for h in hits["results"]}
        past = data(await client.call_tool("search_memory", {
            "query": "staging deploy freeze", "includeProfile": False,
            "asOf": (expires - timedelta(hours=1)).isoformat()}))
        assert saved["id"] in {h["id"] for h in past["results"]}


@pytest.mark.parametrize(("arguments", "said"), [
    ({"forgetAfter": "30d", "expiresAt": "2099-01-01T00:00:00Z"}, "not both"),
    ({"forgetAfter": "next month"}, "is not a duration"),
    ({"forgetAfter": "0h"}, "no time at all"),
    ({"expiresAt": "soon"}, "is not a time"),
    ({"expiresAt": "2099-01-01T00:00:00"}, "has no offset"),
    ({"expiresAt": "2020-01-01T00:00:00Z"}, "is not after now"),
])
async def test_a_bad_expiry_is_refused_with_a_good_call(
        deployment: Deployment, arguments: dict[str, Any], said: str) -> None:
    space = deployment.space("expiry-refused")
    key = deployment.key("agent", {space: "rw"})
    async with mcp_client(deployment.url, key) as client:
        refused = await client.call_tool("add_memory", {
            "content": "The release train leaves on Thursday", **arguments})
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "invalid_input"
        assert said in error_text(refused)
        assert "forgetAfter" in error_text(refused) or "expiresAt" in error_text(refused)
        assert "example" in refused.structured_content
        listed = data(await client.call_tool("search_memory", {"query": "release train",
                                                               "includeProfile": False}))
        assert listed["results"] == []  # nothing was written
