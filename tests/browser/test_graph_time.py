"""The memory graph's time control (docs/time.md), in a real browser: an "as of" before a
correction draws the version it replaced, with a banner saying the view is not today's; "Today"
draws the current space again and the banner goes."""

from __future__ import annotations

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
