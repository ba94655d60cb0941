"""The memory graph shows the space's latest handoff in its detail panel, in a real browser."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]


async def test_the_latest_handoff_opens_in_the_detail_panel(
    deployment: Deployment, open_view: OpenView,
) -> None:
    space = deployment.space("graph-handoff")
    key = deployment.key("night-shift", {space: "rw"})
    who = deployment.principal(key)
    deployment.app.memories.add(who, "Releases are cut on Mondays", space)
    async with open_view(key) as host:
        view = await host.open("memory-graph", "memory_graph_ui", {"space": space})
        await expect(view.locator("header")).to_contain_text("1 memory", timeout=20_000)
        await expect(view.get_by_role("button", name="Latest handoff")).to_be_hidden()
        deployment.app.handoffs.save(who, "Release notes drafted", topic="release 2.4",
                                     done=["changelog"], next_steps=["tag v2.4.0", XSS],
                                     open_questions=["who signs off?"], links=["NOTES.md"],
                                     space=space)
        view = await host.open("memory-graph", "memory_graph_ui", {"space": space})
        button = view.get_by_role("button", name="Latest handoff")
        await expect(button).to_be_visible(timeout=20_000)
        await button.click()
        panel = view.get_by_role("complementary", name="Memory details")
        await expect(panel.locator("#detail-content")).to_have_text("Release notes drafted")
        for text in ("From night-shift", "release 2.4", "Next steps", "tag v2.4.0",
                     "Open questions", "who signs off?", "NOTES.md", "changelog"):
            await expect(panel).to_contain_text(text)
        await expect(panel).to_contain_text(XSS)
        assert await view.locator("img").count() == 0
        await host.screenshot("memory-graph-handoff")
        await host.settled()
        await panel.get_by_role("button", name="Close details").click()
        await expect(panel).to_be_hidden()
        host.assert_clean()
