"""The Conflicts view in a real browser through the test host's bridge: the queue with both
sides, settling one in two clicks (pick the side, confirm) with the server's state checked after,
a stale view refused and reloaded, markup kept as text, a link to the graph, and a read-only
key that can look but not settle (docs/conflicts.md)."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from memspace.domain.models import Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.services.memories.add_types import AddRequest
from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]

OLD = "Sessions use opaque tokens instead of JWTs"
NEW = "Sessions use JWTs instead of opaque tokens"


def queue_of_three(deployment: Deployment, key: str, space: str) -> dict[str, str]:
    """A refused write (its proposal waits), a disputed memory whose text is markup, and two
    current heads of one fact."""
    app, who = deployment.app, deployment.principal(key)
    held = app.memories.submit(who, AddRequest(OLD, space, memory_type="decision")).memories[0]
    refused = app.memories.submit(who, AddRequest(NEW, space, memory_type="decision"))
    assert refused.status == "conflict"
    doubted = app.memories.add(who, XSS, space, "incident").memories[0]
    app.lifecycle.mark(who, doubted.id, "disputed", "nobody can reproduce it", space)
    friday = app.memories.add(who, "Releases ship on Fridays", space).memories[0]
    thursday = app.memories.add(who, "Payment retries back off for an hour", space).memories[0]
    space_id = app.access.resolve(who, space).space.id
    app.store.writes.write(WriteBatch(space_id, [], [Relation(thursday.id, friday.id,
                                                       RelationType.UPDATES, thursday.created_at,
                                                       "agent-b", "moved")]))
    return {"held": held.id, "doubted": doubted.id, "friday": friday.id}


async def test_a_person_settles_a_conflict_in_two_clicks(deployment: Deployment,
                                                         open_view: OpenView) -> None:
    space = deployment.space("queue")
    key = deployment.key("lead", {space: "rw"})
    ids = queue_of_three(deployment, key, space)
    async with open_view(key) as host:
        view = await host.open("conflicts", "conflicts_ui", {"space": space})
        cards = view.locator("article.conflict")
        await expect(cards).to_have_count(3)
        await expect(view.get_by_text("3 open conflicts")).to_be_visible()
        await expect(view.get_by_text(XSS, exact=True)).to_be_visible()
        refused = cards.filter(has_text="refused write")
        await expect(refused.locator(".side")).to_have_count(2)
        await expect(refused.locator('[data-side="proposal"]')).to_contain_text(
            "proposed by lead, never stored")
        await host.screenshot("conflicts")

        await refused.locator('[data-side="proposal"]').get_by_role("button", name="Keep this").click()
        await host.settled()
        await refused.get_by_role("button", name="Confirm").click()
        await expect(view.get_by_role("status")).to_contain_text("Settled")
        await expect(cards).to_have_count(2)
        [call] = host.called("resolve_conflict_ui")
        assert (call.arguments["keep"], call.arguments["supersede"]) == ("proposal", [ids["held"]])
        assert call.arguments["version"] and not call.is_error
        who = deployment.principal(key)
        old = deployment.app.memories.get(who, ids["held"], space).memory
        assert old.status.value == "superseded" and old.superseded_by is not None
        kept = deployment.app.memories.get(who, old.superseded_by, space).memory
        assert (kept.content, kept.active) == (NEW, True)

        # Someone changes the disputed memory after the view listed it: the settlement is
        # refused, nothing changes, and the view shows the conflict as it is now.
        disputed = cards.filter(has_text="disputed")
        await disputed.get_by_role("button", name="Keep it").click()
        await host.settled()
        deployment.app.lifecycle.mark(who, ids["doubted"], "disputed", "still nobody can", space)
        await disputed.get_by_role("button", name="Confirm").click()
        await expect(view.get_by_role("status")).to_contain_text("changed since it was listed")
        await expect(cards).to_have_count(2)
        still = deployment.app.memories.get(who, ids["doubted"], space).memory
        assert still.status.value == "disputed"

        await cards.filter(has_text="two current versions").get_by_role(
            "button", name="Show in the memory graph").click()
        await expect(view.get_by_role("status")).to_contain_text("Asked for the memory graph")
        asked = (await host.model_context())["content"][0]["text"]
        assert "memory_graph_ui" in asked and ids["friday"] in asked
        assert await view.locator("img").count() == 0
        host.assert_clean()


async def test_a_reader_sees_the_queue_but_cannot_settle(deployment: Deployment,
                                                         open_view: OpenView) -> None:
    space = deployment.space("queue-read")
    writer = deployment.key("writer", {space: "rw"})
    queue_of_three(deployment, writer, space)
    reader = deployment.key("reader", {space: "r"})
    async with open_view(reader) as host:
        view = await host.open("conflicts", "conflicts_ui", {"space": space})
        await expect(view.locator("article.conflict")).to_have_count(3)
        keep = view.get_by_role("button", name="Keep this")
        await expect(keep.first).to_be_disabled()
        assert host.called("resolve_conflict_ui") == []
        host.assert_clean()
