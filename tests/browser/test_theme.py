"""Every view follows its host's look: the standard MCP Apps CSS variables it is given, and a
switch to the dark theme while it is open."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import DARK_BACKGROUND, LIGHT_BACKGROUND

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]

VIEWS = [("space-picker", "select_space_ui"), ("guided-save", "guided_save_ui"),
         ("upload", "upload_file_ui"), ("memory-graph", "memory_graph_ui"),
         ("conflicts", "conflicts_ui")]


@pytest.mark.parametrize(("view_name", "tool"), VIEWS)
async def test_the_view_follows_the_hosts_theme(deployment: Deployment, open_view: OpenView,
                                                view_name: str, tool: str) -> None:
    space = deployment.space("theme", "Where the team keeps its decisions")
    key = deployment.key("teammate", {space: "rw"})
    who = deployment.principal(key)
    stripe = deployment.app.memories.add(who, "Payments use Stripe", space, "architecture").memories[0]
    deployment.app.memories.correct(who, stripe.id, "Payments use Adyen", space, reason="fees")
    deployment.app.memories.add(who, "Standups are at 9:30", space, "process")
    async with open_view(key) as host:
        view = await host.open(view_name, tool, {} if tool == "select_space_ui" else {"space": space})
        await expect(view.locator("h1")).to_be_visible()
        assert await host.background() == LIGHT_BACKGROUND
        await host.change_theme("dark")
        await expect(view.locator("body")).to_have_css("background-color", DARK_BACKGROUND)
        if view_name == "memory-graph":
            await expect(view.locator(".stage")).to_have_attribute("aria-busy", "false", timeout=30_000)
        await host.screenshot(f"{view_name}-dark")
        host.assert_clean()
