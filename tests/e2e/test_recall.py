"""Over MCP, with the real model: who said a memory and when come back, and a conversation saved
turn by turn is found by the question a turn answers (services/conversation.py)."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.e2e.conftest import Deployment
from tests.support.server import data, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]


async def test_speaker_and_observed_at_round_trip_over_mcp(deployment: Deployment) -> None:
    space = deployment.space("said")
    async with mcp_client(deployment.url, deployment.key("logger", {space: "rw"})) as client:
        saved = data(await client.call_tool("add_memory", {
            "content": "I went to a LGBTQ support group yesterday", "speaker": "Caroline",
            "observedAt": "2023-05-08T13:56:00-07:00"}))
        assert saved["memories"][0]["speaker"] == "Caroline"
        found = data(await client.call_tool("search_memory", {"query": "support group"}))
        [hit] = found["results"]
        assert hit["speaker"] == "Caroline"
        assert datetime.fromisoformat(hit["observedAt"]) == datetime.fromisoformat(
            "2023-05-08T13:56:00-07:00")
        assert hit["observedAt"].endswith("-07:00")  # in the offset it was given
        got = data(await client.call_tool("getMemory", {"memoryId": hit["id"]}))
        assert got["memory"]["speaker"] == "Caroline"
        assert got["memory"]["observedAt"] == hit["observedAt"]


async def test_a_reply_is_found_by_the_question_it_answers(deployment: Deployment) -> None:
    space = deployment.space("chat")
    turns = [("Melanie", "Which city did you move to for the new job?"),
             ("Caroline", "Lisbon! I love it here."),
             ("Melanie", "I baked bread this weekend."),
             ("Caroline", "My cat knocked over a plant.")]
    async with mcp_client(deployment.url, deployment.key("logger", {space: "rw"})) as client:
        ids = []
        for speaker, text in turns:
            saved = data(await client.call_tool("add_memory", {
                "content": f"{speaker}: {text}", "speaker": speaker,
                "observedAt": "2023-06-01T10:00:00+00:00"}))
            ids.append(saved["memories"][0]["id"])
        found = data(await client.call_tool("search_memory", {
            "query": "Which city did Caroline move to?", "limit": 2}))
    top = [r["id"] for r in found["results"]]
    # "Lisbon! I love it here." names no city question on its own; read with the turn before,
    # it is found, and the query naming Caroline ranks her answer first.
    assert top[0] == ids[1]
    assert "speaker" in found["results"][0]["matchedBy"]
