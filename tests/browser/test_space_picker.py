"""The space picker in a real browser: lists the key's spaces, and choosing one switches the
key's active space on the server."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS
from tests.support.server import data

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]


async def test_choosing_a_space_makes_it_the_keys_active_space(deployment: Deployment,
                                                               open_view: OpenView) -> None:
    payments = deployment.space("payments", "The payments rebuild")
    support = deployment.space("support", XSS)
    key = deployment.key("teammate", {payments: "rw", support: "r"})
    deployment.app.memories.add(deployment.principal(key), "Webhooks retry three times", payments)
    async with open_view(key) as host:
        view = await host.open("space-picker", "select_space_ui")
        options = view.get_by_role("option")
        await expect(options).to_have_count(2)
        await expect(options.filter(has_text=payments)).to_contain_text("read & write")
        await expect(options.filter(has_text=payments)).to_contain_text("1 memory")
        await expect(options.filter(has_text=support)).to_contain_text("read only")
        await expect(view.get_by_text(XSS, exact=True)).to_be_visible()
        await view.get_by_role("searchbox").fill("rebuild")
        await expect(options).to_have_count(1)
        await view.get_by_role("searchbox").fill("")
        await host.settled()
        await options.filter(has_text=support).click()
        await expect(view.get_by_role("status")).to_contain_text(f"Active space is now {support}")
        await expect(options.filter(has_text=support)).to_have_attribute("aria-selected", "true")
        await host.screenshot("space-picker")
        me = data(await host.client.call_tool("whoAmI", {}))
        assert me["activeSpace"] == support
        assert support in (await host.model_context())["content"][0]["text"]
        assert [c.arguments for c in host.called("set_active_space_ui")] == [{"space": support}]
        assert await view.locator("img").count() == 0
        host.assert_clean()
