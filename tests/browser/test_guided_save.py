"""The guided save form in a real browser: saving writes a memory, a correction previews and
then writes the UPDATES edge, and bad input is stopped before anything is sent."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]


async def test_saving_a_memory_writes_it_with_its_category(deployment: Deployment,
                                                           open_view: OpenView) -> None:
    space = deployment.space("handbook")
    key = deployment.key("teammate", {space: "rw"})
    async with open_view(key) as host:
        view = await host.open("guided-save", "guided_save_ui", {"space": space})
        await expect(view.get_by_role("tab", name="New memory")).to_have_attribute("aria-selected", "true")
        await view.get_by_role("button", name="Save memory").click()
        await expect(view.get_by_text("Write the fact first.")).to_be_visible()
        assert host.called("save_memory_ui") == []
        await view.get_by_label("Fact").fill("Deploys need two approvals from the platform team")
        await view.get_by_label("Category").fill("process")
        await view.get_by_role("button", name="Save memory").click()
        result = view.get_by_role("region", name="Result")
        await expect(result).to_contain_text(f"Saved 1 memory in {space}")
        await expect(result).to_contain_text("Deploys need two approvals from the platform team")
        await host.screenshot("guided-save")
        host.assert_clean()
    _, page = deployment.app.memories.list(deployment.principal(key), space)
    assert [(m.content, m.category, m.created_by) for m in page.items] == [
        ("Deploys need two approvals from the platform team", "process", "teammate")]


async def test_a_memory_with_markup_is_saved_and_shown_as_text(deployment: Deployment,
                                                               open_view: OpenView) -> None:
    space = deployment.space("xss")
    key = deployment.key("teammate", {space: "rw"})
    async with open_view(key) as host:
        view = await host.open("guided-save", "guided_save_ui", {"space": space, "content": XSS})
        await expect(view.get_by_label("Fact")).to_have_value(XSS)
        await view.get_by_role("button", name="Save memory").click()
        await expect(view.get_by_role("region", name="Result").get_by_text(XSS, exact=True)).to_be_visible()
        await view.get_by_role("tab", name="Correct a memory").click()
        await expect(view.get_by_role("option").get_by_text(XSS, exact=True)).to_be_visible()
        assert await view.locator("img, script:not(:is(head *, body > script))").count() == 0
        host.assert_clean()


async def test_a_correction_previews_and_then_writes_the_updates_edge(deployment: Deployment,
                                                                      open_view: OpenView) -> None:
    space = deployment.space("infra")
    key = deployment.key("teammate", {space: "rw"})
    who = deployment.principal(key)
    old = deployment.app.memories.add(who, "The CI runs on Jenkins", space, "tooling").memories[0]
    deployment.app.memories.add(who, "Standup is at 9:30 every weekday", space, "process")
    async with open_view(key) as host:
        view = await host.open("guided-save", "guided_save_ui", {"space": space})
        await view.get_by_role("tab", name="Correct a memory").click()
        await view.get_by_role("searchbox", name="Find a memory").fill("which CI system do we use")
        await view.get_by_role("option").filter(has_text="Jenkins").first.click()
        correction = view.get_by_label("Correction")
        await expect(correction).to_have_value("The CI runs on Jenkins")
        await correction.fill("The CI runs on GitHub Actions")
        await view.get_by_label("Why it changed (optional)").fill("migrated in March")
        preview = view.get_by_label("What will be saved")
        await expect(preview).to_contain_text("UPDATES")
        await expect(preview).to_contain_text("The CI runs on GitHub Actions")
        await expect(preview).to_contain_text("The CI runs on Jenkins")
        await expect(preview).to_contain_text("migrated in March")
        await host.screenshot("guided-save-correction-preview")
        await host.settled()
        await view.get_by_role("button", name="Save correction").click()
        result = view.get_by_role("region", name="Result")
        await expect(result).to_contain_text("UPDATES")
        await expect(result).to_contain_text("Superseded")
        await host.screenshot("guided-save-correction-done")
        assert host.called("correct_memory_ui")[0].arguments["memoryId"] == old.id
        host.assert_clean()
    detail = deployment.app.memories.get(who, old.id, space)
    assert detail.memory.active is False
    [edge] = detail.relations
    assert (edge.type.value, edge.target_id, edge.reason) == ("UPDATES", old.id, "migrated in March")
    assert deployment.app.memories.get(who, edge.source_id, space).memory.content == (
        "The CI runs on GitHub Actions")
