"""Over MCP, with the real model: who said a memory and when come back, a conversation saved
turn by turn is found by the question a turn answers (services/memories/conversation.py), and a query's
date and a turn's neighbours move the ranking (services/search/ranking.py)."""

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
        lean = data(await client.call_tool("search_memory", {"query": "support group"}))
        assert [(h["who"], h["when"]) for h in lean["results"]] == [("Caroline", "2023-05-08")]
        found = data(await client.call_tool("search_memory", {"query": "support group",
                                                              "fullRecords": True}))
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
            "query": "Which city did Caroline move to?", "limit": 2, "fullRecords": True}))
    # "Lisbon! I love it here." names no city question on its own; the question it answers
    # matched, and lifts it (neighbours), as does the query naming Caroline (speaker).
    ranked = {r["id"]: r for r in found["results"]}
    assert set(ranked) == {ids[0], ids[1]}
    assert {"neighbour", "speaker"} <= set(ranked[ids[1]]["matchedBy"])


async def test_a_question_is_found_by_the_reply_and_a_date_by_when_it_was_said(
        deployment: Deployment) -> None:
    space = deployment.space("replies")
    sessions = [
        ("2023-07-14T18:00:00+02:00", [("Jon", "Guess what I started on Friday?"),
                                        ("Gina", "Tell me!"),
                                        ("Jon", "Salsa lessons at the studio downtown.")]),
        ("2023-08-20T09:30:00+02:00", [("Jon", "Guess what I started yesterday?"),
                                        ("Gina", "No idea, tell me!"),
                                        ("Jon", "Pottery classes with my neighbour.")]),
    ]
    async with mcp_client(deployment.url, deployment.key("logger", {space: "rw"})) as client:
        ids = []
        for observed_at, turns in sessions:
            for speaker, text in turns:
                saved = data(await client.call_tool("add_memory", {
                    "content": f"{speaker}: {text}", "speaker": speaker,
                    "observedAt": observed_at}))
                ids.append(saved["memories"][0]["id"])
        # The two question turns are alike: the month the query names tells them apart (when
        # each was observed), and the answer two turns on is lifted by its question.
        found = data(await client.call_tool("search_memory", {
            "query": "What did Jon start in August 2023?", "limit": 6, "fullRecords": True}))
    ranked = {r["id"]: r for r in found["results"]}
    order = [r["id"] for r in found["results"]]
    assert order.index(ids[3]) < order.index(ids[0])
    assert "time" in ranked[ids[3]]["matchedBy"] and "time" not in ranked[ids[0]]["matchedBy"]
    assert "neighbour" in ranked[ids[5]]["matchedBy"]
