"""The test host speaks MCP Apps through the SDK's own AppBridge (host-bridge.js), the host side
real clients build on, so a protocol mismatch between the views and the SDK fails here."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from playwright.async_api import expect

from tests.browser.conftest import HOST_BRIDGE, Deployment, OpenView
from tests.support.packaging import REPO

LOCK = REPO / "widgets" / "package-lock.json"


def test_the_host_bundle_is_built_from_the_pinned_ext_apps_and_current_sources() -> None:
    packages = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]
    pinned = packages["node_modules/@modelcontextprotocol/ext-apps"]["version"]
    header = HOST_BRIDGE.read_text(encoding="utf-8").partition("\n")[0]
    built = re.match(r"// @modelcontextprotocol/ext-apps (\S+) sources sha256:([0-9a-f]{64}) ", header)
    rebuild = "rebuild it: `cd widgets && npm ci && node ../tests/browser/build-host.mjs`"
    assert built is not None, f"host-bridge.js lacks its header; {rebuild}"
    assert built.group(1) == pinned, f"host-bridge.js was built from ext-apps {built.group(1)}; {rebuild}"
    sources = hashlib.sha256()
    for name in ("host-bridge.mjs", "build-host.mjs"):
        sources.update((HOST_BRIDGE.parent / name).read_bytes())
    assert built.group(2) == sources.hexdigest(), f"host-bridge.mjs changed since the build; {rebuild}"


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.model
async def test_the_sdk_bridge_initializes_the_view_and_delivers_input_and_result(
        deployment: Deployment, open_view: OpenView) -> None:
    space = deployment.space("bridge", "Handshake through the SDK host")
    key = deployment.key("teammate", {space: "rw"})
    async with open_view(key) as host:
        view = await host.open("space-picker", "select_space_ui")
        await expect(view.get_by_role("option")).to_have_count(1)
        traffic = await host.page.evaluate("window.traffic")
        asked = next(m for m in traffic if m.get("method") == "ui/initialize")
        answer = next(m for m in traffic if m["direction"] == "host->view" and m.get("id") == asked["id"])
        assert answer["result"]["hostInfo"]["name"] == "memspace-test-host"
        assert answer["result"]["protocolVersion"]  # chosen by the SDK, not by this test
        sent = [m.get("method") for m in traffic if m["direction"] == "host->view"]
        assert sent.index("ui/notifications/tool-input") < sent.index("ui/notifications/tool-result")
        height = await host.page.locator("#view").evaluate("f => f.style.height")
        traffic = await host.page.evaluate("window.traffic")  # read after: it holds that size
        sizes = {f"{min(m['params']['height'], 900)}px" for m in traffic
                 if m.get("method") == "ui/notifications/size-changed"}
        assert height in sizes, f"the frame is {height!r}, the view reported {sizes}"
        await host.change_theme("dark")
        traffic = await host.page.evaluate("window.traffic")
        changed = [m for m in traffic if m.get("method") == "ui/notifications/host-context-changed"]
        assert changed and changed[-1]["params"] == {"theme": "dark"}  # only what changed
        await host.screenshot("sdk-host-space-picker")
        host.assert_clean()
