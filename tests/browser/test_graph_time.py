"""The memory graph's time control (docs/time.md), in a real browser: an "as of" before a
correction draws the version it replaced, with a banner saying the view is not today's; "Today"
draws the current space again and the banner goes; with "known at" too, each status is the
record's as it stood then, in the drawing and in a memory's details."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]

BEGAN = datetime(2026, 1, 1, tzinfo=UTC)
CORRECTED = datetime(2026, 3, 1, tzinfo=UTC)


async def matches(view: Any, text: str) -> Any:
    """The view's own search over the drawn nodes: its match count names what is drawn."""
    search = view.get_by_role("searchbox", name="Search memories")
    await search.fill("")
    await search.fill(text)
    return view.locator(".search .hint")


async def test_as_of_draws_the_replaced_version_and_today_the_current_one(
    deployment: Deployment, open_view: OpenView,
) -> None:
    space = deployment.space("graph-time")
    key = deployment.key("historian", {space: "rw"})
    who = deployment.principal(key)
    app = deployment.app
    stripe = app.memories.add(who, "Payments use Stripe", space, observed_at=BEGAN).memories[0]
    app.memories.correct(who, stripe.id, "Payments use Adyen", space, reason="cheaper fees",
                         observed_at=CORRECTED)
    async with open_view(key) as host:
        view = await host.open("memory-graph", "memory_graph_ui", {"space": space})
        header, banner = view.locator("header"), view.get_by_role("status")
        await expect(header).to_contain_text("2 memories (1 superseded)", timeout=20_000)
        await expect(view.locator(".past-view")).to_be_hidden()
        await expect(view.get_by_role("button", name="Today")).to_be_disabled()

        await view.get_by_label("As of").fill("2026-02-01T00:00")
        await view.get_by_role("button", name="Show").click()
        await expect(header).to_contain_text("1 memory", timeout=20_000)
        await expect(header).not_to_contain_text("superseded")  # it held then: drawn as current
        await expect(view.locator(".past-view")).to_be_visible()
        await expect(view.locator(".past-view")).to_contain_text("Not today's view: facts valid at")
        await expect(banner.filter(has_text="Not today's view")).to_contain_text(
            "as the space knows them now")
        await expect(await matches(view, "Stripe")).to_have_text("1 match")
        await expect(await matches(view, "Adyen")).to_have_text("0 matches")
        sent = host.called("graph_data_ui")[-1].arguments
        # The input is the user's local time; the view sends it as UTC, whatever the zone.
        assert abs(datetime.fromisoformat(sent["asOf"]) - datetime(2026, 2, 1, tzinfo=UTC)) \
            <= timedelta(hours=14)
        assert "knownAt" not in sent or sent["knownAt"] is None

        await view.get_by_role("button", name="Today").click()
        await expect(header).to_contain_text("2 memories (1 superseded)", timeout=20_000)
        await expect(view.locator(".past-view")).to_be_hidden()
        await expect(view.get_by_label("As of")).to_have_value("")
        await expect(await matches(view, "Adyen")).to_have_text("1 match")
        assert "asOf" not in host.called("graph_data_ui")[-1].arguments
        await host.screenshot("memory-graph-time")
        host.assert_clean()


async def test_as_of_with_known_at_draws_each_status_as_the_record_stood_then(
    deployment: Deployment, open_view: OpenView,
) -> None:
    # Facts valid on 1 February, as the space knew them after the correction: Stripe was the fact
    # then, and the record says it has since been superseded. Drawn as current, the view would
    # say more than the record did at that instant.
    space = deployment.space("graph-bitemporal")
    key = deployment.key("auditor", {space: "rw"})
    who = deployment.principal(key)
    app = deployment.app
    stripe = app.memories.add(who, "Payments use Stripe", space, observed_at=BEGAN).memories[0]
    app.memories.correct(who, stripe.id, "Payments use Adyen", space, reason="cheaper fees",
                         observed_at=CORRECTED)
    recorded = datetime.now(UTC)
    async with open_view(key) as host:
        view = await host.open("memory-graph", "memory_graph_ui", {"space": space})
        header = view.locator("header")
        await expect(header).to_contain_text("2 memories (1 superseded)", timeout=20_000)
        # "Known at" takes whole minutes: wait for the clock to leave the correction's minute,
        # so that the minute typed holds the correction (knownAt may not lie in the future).
        await until_past_minute_of(recorded)
        await view.get_by_label("As of").fill("2026-02-01T00:00")
        await view.get_by_label("Known at").fill(await view.locator("body").evaluate(LOCAL_MINUTE))
        await view.get_by_role("button", name="Show").click()
        await expect(header).to_contain_text("1 memory (1 superseded)", timeout=20_000)
        await expect(view.locator(".past-view")).to_contain_text("as the space knew them at")
        await expect(await matches(view, "Stripe")).to_have_text("1 match")
        await view.get_by_role("searchbox", name="Search memories").press("Enter")
        box = await view.locator("canvas").bounding_box()
        assert box is not None
        await host.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        panel = view.get_by_role("complementary", name="Memory details")
        await expect(panel.locator("#detail-content")).to_have_text("Payments use Stripe")
        await expect(panel.locator(".detail-head")).to_contain_text("superseded")
        sent = host.called("graph_data_ui")[-1].arguments
        detail = host.called("memory_detail_ui")[-1].arguments
        assert detail["memoryId"] == stripe.id
        assert datetime.fromisoformat(detail["knownAt"]) == datetime.fromisoformat(sent["knownAt"])
        host.assert_clean()


# The browser's own clock and zone, as a datetime-local value: the current minute.
LOCAL_MINUTE = """() => {
  const d = new Date(), p = (n) => String(n).padStart(2, "0");
  const day = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  return `${day}T${p(d.getHours())}:${p(d.getMinutes())}`;
}"""


async def until_past_minute_of(when: datetime) -> None:
    """Returns once the wall clock is in a later minute than `when` (at most a minute away)."""
    boundary = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
    # A wait for a wall-clock instant, not for another process: nothing can race it.
    await asyncio.sleep(max(0.0, (boundary - datetime.now(UTC)).total_seconds()) + 0.05)
    assert datetime.now(UTC) >= boundary
