"""The memory graph in a real browser, on a 500-memory space: it lays out, clicking a node
shows that memory's history and source, markup stays text, and the frame time is printed."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.async_api import expect

from memspace.domain.models import Memory, Relation, RelationType
from memspace.domain.ports import WriteBatch
from memspace.domain.text import content_hash
from memspace.services.shared.clock import new_id
from tests.browser.conftest import Deployment, OpenView
from tests.browser.viewhost import XSS

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.model]

NODES = 500
CATEGORIES = ["architecture", "process", "decision", "convention", "tooling", "people", "incident"]


def seed_graph(deployment: Deployment, key: str, space: str) -> dict[str, str]:
    """NODES memories in several categories, chains of corrections, and one EXTENDS and one
    DERIVES edge (written as an extracting model would write them). Returns ids by role."""
    app, who = deployment.app, deployment.principal(key)
    stripe = app.memories.add(who, "Payments use Stripe", space, "architecture").memories[0]
    adyen = app.memories.correct(who, stripe.id, "Payments use Adyen", space,
                                 reason="cheaper fees in the EU").memories[0]
    xss = app.memories.add(who, XSS, space, "incident").memories[0]
    per_category = (NODES - 3 - 2 - 40) // len(CATEGORIES)
    for n, category in enumerate(CATEGORIES):
        facts = [f"{category} fact {i}: service {i % 17} talks to queue {(i * 7) % 11} ({n})"
                 for i in range(per_category)]
        app.memories.add_many(who, facts, space, category)
    _, page = app.memories.list(who, space, category="process", limit=40)
    for memory in page.items:  # 40 corrections: 40 UPDATES edges, 40 faded nodes
        app.memories.correct(who, memory.id, memory.content + " (revised)", space)
    space_id = app.access.resolve(who, space).space.id
    for kind, text in [(RelationType.EXTENDS, "Adyen payouts settle in two days"),
                       (RelationType.DERIVES, "EU card payments go through Adyen")]:
        [vector] = app.embedder.embed([text])
        now = datetime.now(UTC)
        memory = Memory(new_id(), space_id, text, "architecture", vector, True, now, "extractor",
                        content_hash(text))
        edge = Relation(memory.id, adyen.id, kind, now, "extractor", "adds detail")
        app.store.writes.write(WriteBatch(space_id, [memory], [edge], at=now))
    return {"stripe": stripe.id, "adyen": adyen.id, "xss": xss.id}


async def find_and_click(view: Any, page: Any, text: str) -> None:
    """Search, let Enter centre the first match, then click the middle of the canvas."""
    await view.get_by_role("searchbox", name="Search memories").fill(text)
    await view.get_by_role("searchbox", name="Search memories").press("Enter")
    box = await view.locator("canvas").bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


async def test_clicking_a_node_shows_its_history_and_source(
    deployment: Deployment, open_view: OpenView, capsys: pytest.CaptureFixture[str]
) -> None:
    space = deployment.space("graph")
    key = deployment.key("teammate", {space: "rw"})
    ids = seed_graph(deployment, key, space)
    async with open_view(key) as host:
        view = await host.open("memory-graph", "memory_graph_ui", {"space": space})
        stage = view.locator(".stage")
        await expect(view.locator("header")).to_contain_text(f"{NODES} memories", timeout=20_000)
        await expect(view.locator("header")).to_contain_text("41 superseded")
        await expect(stage).to_have_attribute("aria-busy", "false", timeout=30_000)
        frames = await frame_figures(host)
        await host.screenshot("memory-graph")

        await find_and_click(view, host.page, "Payments use Adyen")
        panel = view.get_by_role("complementary", name="Memory details")
        await expect(panel.locator("#detail-content")).to_have_text("Payments use Adyen")
        await expect(panel).to_contain_text("Replaces")
        await expect(panel).to_contain_text("Payments use Stripe")
        await expect(panel).to_contain_text("cheaper fees in the EU")
        await expect(panel).to_contain_text("Extended by")
        await expect(panel).to_contain_text("Used to derive")
        await expect(panel).to_contain_text("Written directly by teammate")
        await host.screenshot("memory-graph-detail")
        await host.settled()
        await panel.get_by_role("button", name="Payments use Stripe").click()
        await expect(panel.locator("#detail-content")).to_have_text("Payments use Stripe")
        await expect(panel).to_contain_text("superseded")
        await expect(panel).to_contain_text("Replaced by")

        await find_and_click(view, host.page, "onerror")
        await expect(panel.locator("#detail-content")).to_have_text(XSS)
        assert await view.locator("img").count() == 0
        search = view.get_by_role("searchbox", name="Search memories")
        await search.fill("Payments use Stripe")
        await search.press("Enter")
        await search.press("Tab")  # keyboard only: the centred memory opens with Enter
        await host.page.keyboard.press("Enter")
        await expect(panel.locator("#detail-content")).to_have_text("Payments use Stripe")
        calls = [c.arguments["memoryId"] for c in host.called("memory_detail_ui")]
        assert calls == [ids["adyen"], ids["stripe"], ids["xss"], ids["stripe"]]
        host.assert_clean()
    with capsys.disabled():
        print(f"\nmemory graph, {NODES} nodes ({host.suffix}): {frames}")


async def frame_figures(host: Any) -> str:
    """Frame work (simulation tick + canvas draw) per animated frame, from the view's own
    User Timing entries, and the frame rate the layout ran at."""
    element = await host.page.query_selector("#view")
    frame = await element.content_frame()
    entries = await frame.evaluate(
        "() => performance.getEntriesByName('memspace-graph-frame')"
        ".map(e => [e.startTime, e.duration])")
    assert len(entries) > 30, f"the layout animated only {len(entries)} frames"
    work = sorted(d for _, d in entries)
    span_s = (entries[-1][0] - entries[0][0]) / 1000
    p95 = work[int(len(work) * 0.95) - 1]
    return (f"{len(work)} frames, work per frame mean {statistics.mean(work):.2f} ms, "
            f"p95 {p95:.2f} ms, max {work[-1]:.2f} ms; {len(work) / span_s:.0f} frames/s")
