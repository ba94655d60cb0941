"""The five views through the console's host page in a real browser, as the signed-in key:
the graph searched and a memory's history opened, a fact corrected through guided save, a
conflict settled, a Markdown file uploaded and its facts shown, a read-only key refused on every
write; and the console's first paint and the 500-memory graph's frame rate printed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import ARTIFACTS, Deployment
from tests.browser.console import ConsoleTab
from tests.browser.test_conflicts_view import NEW, queue_of_three
from tests.browser.test_memory_graph import NODES, find_and_click, frame_figures, seed_graph
from tests.browser.test_upload import RUNBOOK
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]


async def test_the_graph_is_searched_and_a_memorys_history_opened(
        deployment: Deployment, page: Page, request: pytest.FixtureRequest) -> None:
    space = deployment.space("console-graph")
    key = deployment.key("hana", {space: "rw"})
    app, who = deployment.app, deployment.principal(key)
    stripe = app.memories.add(who, "Payments use Stripe", space, "architecture").memories[0]
    app.memories.correct(who, stripe.id, "Payments use Adyen", space, reason="cheaper fees in the EU")
    app.memories.add(who, XSS, space, "incident")
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    view = await tab.open(space, "graph")
    await expect(view.locator("header")).to_contain_text("3 memories")
    await expect(view.locator(".stage")).to_have_attribute("aria-busy", "false", timeout=30_000)
    await find_and_click(view, page, "Payments use Adyen")
    panel = view.get_by_role("complementary", name="Memory details")
    await expect(panel.locator("#detail-content")).to_have_text("Payments use Adyen")
    await expect(panel).to_contain_text("Replaces")
    await expect(panel).to_contain_text("cheaper fees in the EU")
    await tab.settled()
    await panel.get_by_role("button", name="Payments use Stripe").click()
    await expect(panel.locator("#detail-content")).to_have_text("Payments use Stripe")
    await expect(panel).to_contain_text("Replaced by")
    store = request.node.callspec.params.get("deployment", "sqlite")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"console-graph-{store}.png"))  # the README's
    assert await view.locator("img").count() == 0
    tab.assert_clean()


async def test_a_fact_is_corrected_through_guided_save(deployment: Deployment, page: Page) -> None:
    space = deployment.space("console-save")
    key = deployment.key("ines", {space: "rw"})
    who = deployment.principal(key)
    old = deployment.app.memories.add(who, "The CI runs on Jenkins", space, "tooling").memories[0]
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    view = await tab.open(space, "save")
    await view.get_by_role("tab", name="Correct a memory").click()
    await view.get_by_role("searchbox", name="Find a memory").fill("which CI system do we use")
    await view.get_by_role("option").filter(has_text="Jenkins").first.click()
    await view.get_by_label("Correction").fill("The CI runs on GitHub Actions")
    await view.get_by_label("Why it changed (optional)").fill("migrated in March")
    await expect(view.get_by_label("What will be saved")).to_contain_text("UPDATES")
    await tab.settled()
    await view.get_by_role("button", name="Save correction").click()
    await expect(view.get_by_role("region", name="Result")).to_contain_text("Superseded")
    tab.assert_clean()
    detail = deployment.app.memories.get(who, old.id, space)
    [edge] = detail.relations
    assert (detail.memory.active, edge.type.value, edge.reason) == (False, "UPDATES",
                                                                    "migrated in March")
    fixed = deployment.app.memories.get(who, edge.source_id, space).memory
    assert (fixed.content, fixed.created_by) == ("The CI runs on GitHub Actions", "ines")


async def test_a_conflict_is_settled(deployment: Deployment, page: Page) -> None:
    space = deployment.space("console-queue")
    key = deployment.key("jo", {space: "rw"})
    ids = queue_of_three(deployment, key, space)
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    view = await tab.open(space, "conflicts")
    cards = view.locator("article.conflict")
    await expect(cards).to_have_count(3)
    refused = cards.filter(has_text="refused write")
    await refused.locator('[data-side="proposal"]').get_by_role("button", name="Keep this").click()
    await tab.settled()
    await refused.get_by_role("button", name="Confirm").click()
    await expect(view.get_by_role("status")).to_contain_text("Settled")
    await expect(cards).to_have_count(2)
    tab.assert_clean()
    who = deployment.principal(key)
    old = deployment.app.memories.get(who, ids["held"], space).memory
    assert old.status.value == "superseded" and old.superseded_by is not None
    assert deployment.app.memories.get(who, old.superseded_by, space).memory.content == NEW


async def test_an_uploaded_markdown_file_shows_its_facts(deployment: Deployment, page: Page,
                                                         tmp_path: Path) -> None:
    space = deployment.space("console-docs")
    key = deployment.key("kai", {space: "rw"})
    runbook = tmp_path / "deploy-runbook.md"
    runbook.write_text(RUNBOOK, encoding="utf-8")
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    view = await tab.open(space, "upload")
    await view.locator("#file").set_input_files(str(runbook))
    await view.get_by_label("Title (optional)").fill("Deploy runbook")
    await tab.settled()
    await view.get_by_role("button", name="Upload").click()
    facts = view.get_by_role("region", name="Facts from the document")
    await expect(facts).to_contain_text("from Deploy runbook", timeout=30_000)
    await expect(facts).to_contain_text("every Tuesday at 10:00 UTC")
    await expect(facts.get_by_text(XSS)).to_have_count(1)
    assert await view.locator("img").count() == 0
    tab.assert_clean()


async def test_a_read_only_key_sees_the_views_and_every_write_is_refused(
        deployment: Deployment, page: Page) -> None:
    space = deployment.space("console-read")
    writer = deployment.key("writer", {space: "rw"})
    queue_of_three(deployment, writer, space)
    reader = deployment.key("reader", {space: "r"})
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(reader)
    view = await tab.open(space, "conflicts")
    await expect(view.locator("article.conflict")).to_have_count(3)
    await expect(view.get_by_role("button", name="Keep this").first).to_be_disabled()
    view = await tab.open(space, "save")
    await expect(view.get_by_text(f"This key can only read {space}")).to_be_visible()
    view = await tab.open(space, "upload")
    await expect(view.locator("#file")).to_be_disabled()
    # The view greys the buttons out; the server is what refuses. A write sent anyway, as this
    # page's session, gets the key's own error.
    answer = await page.evaluate("""async (space) => {
      const config = JSON.parse(document.getElementById("console-config").textContent);
      const renewed = await fetch("/console/bearer", {method: "POST",
                                  headers: {"X-Memspace-CSRF": config.csrf}});
      const bearer = (await renewed.json()).bearer;
      const call = await fetch("/mcp", {method: "POST", headers: {
          "Authorization": `Bearer ${bearer}`, "Content-Type": "application/json",
          "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
        body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/call", params: {
          name: "save_memory_ui", arguments: {space, content: "Readers cannot write this"}}})});
      return await call.text();
    }""", space)
    assert '"isError":true' in answer and "forbidden" in answer, answer
    tab.assert_clean()


async def test_console_first_paint_and_the_500_memory_graph(
        deployment: Deployment, page: Page, capsys: pytest.CaptureFixture[str]) -> None:
    space = deployment.space("console-perf")
    key = deployment.key("perf", {space: "rw"})
    seed_graph(deployment, key, space)
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    await page.goto(f"{deployment.url}/console/{space}/graph")
    view = await tab.ready()
    await expect(view.locator("header")).to_contain_text(f"{NODES} memories", timeout=20_000)
    await expect(view.locator(".stage")).to_have_attribute("aria-busy", "false", timeout=30_000)
    paint = await page.evaluate("""() => ({
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
      nav: performance.getEntriesByType("navigation")[0].responseEnd})""")
    frames = await frame_figures(SimpleNamespace(page=page))
    tab.assert_clean()
    with capsys.disabled():
        print(f"\nconsole first contentful paint {paint['fcp']:.0f} ms (page received at "
              f"{paint['nav']:.0f} ms); memory graph, {NODES} nodes, in the console: {frames}")
