"""The Python half of the test MCP Apps host: renders a view in host.html and forwards the
view's tools/call to the real server over MCP, as a host like Claude or VS Code would."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import Client

if TYPE_CHECKING:
    from playwright.async_api import ConsoleMessage, Dialog, FrameLocator, Page, Request

# A host's theme: the standard MCP Apps variables, light-dark() so a theme switch applies.
HOST_STYLES = {
    "--color-background-primary": "light-dark(#faf9f5, #262624)",
    "--color-background-secondary": "light-dark(#f0eee6, #30302e)",
    "--color-background-tertiary": "light-dark(#e8e6dc, #3a3935)",
    "--color-text-primary": "light-dark(#1f1e1d, #f5f4ef)",
    "--color-text-secondary": "light-dark(#5e5d59, #bfbdb5)",
    "--color-border-primary": "light-dark(#d9d6cc, #4a4944)",
    "--color-border-secondary": "light-dark(#e3e1d9, #3a3935)",
    "--font-sans": "system-ui, -apple-system, sans-serif",
    "--border-radius-md": "8px",
    "--border-radius-lg": "12px",
}
# The tallest frame the test host gives a view (host-bridge.mjs caps the iframe at it too).
MAX_HEIGHT = 900
# The height the view reports (the MCP Apps SDK's autoResize: its document's max-content
# height, rounded up), measured in the view the way the SDK measures it.
VIEW_HEIGHT = """() => {
  const root = document.documentElement, was = root.style.height;
  root.style.height = "max-content";
  const height = Math.ceil(root.getBoundingClientRect().height);
  root.style.height = was;
  return height;
}"""
LAST_REPORTED = """() => {
  const sizes = window.traffic.filter(m => m.direction === "view->host"
                                           && m.method === "ui/notifications/size-changed");
  return sizes.length ? sizes[sizes.length - 1].params : null;
}"""
# In the host page: the view's last report is that height, and the frame has it (capped).
REPORTED_AND_APPLIED = f"""([height, max]) => {{
  const last = ({LAST_REPORTED})();
  return last !== null && last.height === height
      && document.getElementById("view").clientHeight === Math.min(height, max);
}}"""
# A wait that outlasts one report and resize (a few animation frames); a view still growing
# after this many is measured again, and one never settled fails with its sizes.
SETTLE_WAIT_MS = 2_000
SETTLE_TRIES = 15
LIGHT_BACKGROUND = "rgb(250, 249, 245)"
# Data that would run as script if any view turned it into markup, or closed the view's own
# inline <script> if it were ever embedded in the HTML.
XSS = '<img src=x onerror=alert(1)></script><script>alert(2)</script>'

DARK_BACKGROUND = "rgb(38, 38, 36)"


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    is_error: bool


@dataclass
class ViewHost:
    page: Page
    client: Client
    host_url: str  # where the test host page is served
    artifacts: Path
    suffix: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    tools: dict[str, Any] = field(default_factory=dict)

    async def attach(self) -> None:
        """Listen to the page and bind the host page's tool calls to this MCP client."""
        self.tools = {t.name: t for t in (await self.client.list_tools()).tools}
        self.page.on("dialog", self._on_dialog)
        self.page.on("request", self._on_request)
        self.page.on("console", self._on_console)
        await self.page.expose_function("memspaceCallTool", self._forward)
        await self.page.goto(self.host_url)

    async def open(self, view: str, tool: str, arguments: dict[str, Any] | None = None,
                   theme: str = "light") -> FrameLocator:
        """Call the launcher tool, fetch its ui:// resource, render it and wait for the handshake."""
        arguments = arguments or {}
        launcher = self.tools[tool]
        uri = launcher.meta["ui"]["resourceUri"]
        assert uri == f"ui://memspace/{view}.html"
        result = await self.client.call_tool(tool, arguments)
        resource = (await self.client.read_resource(uri)).contents[0]
        assert resource.mime_type == "text/html;profile=mcp-app"
        await self.page.evaluate("config => window.startView(config)", {
            "toolName": tool,
            "html": resource.text,  # type: ignore[union-attr]
            "csp": (resource.meta or {})["ui"]["csp"],
            "toolInput": arguments,
            "toolResult": result.model_dump(by_alias=True, mode="json", exclude_none=True),
            "hostContext": {
                "theme": theme,
                "styles": {"variables": HOST_STYLES},
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "containerDimensions": {"maxHeight": MAX_HEIGHT},
                "locale": "en-US",
                "timeZone": "UTC",
                "platform": "web",
                "toolInfo": {"tool": launcher.model_dump(by_alias=True, mode="json", exclude_none=True)},
            },
        })
        await self.page.wait_for_function("window.isInitialized()")
        return self.page.frame_locator("#view")

    async def settled(self) -> None:
        """Wait until the view has reported the height it has now and the host has given the
        frame that height (autoResize). A click aimed while the host is still resizing can land
        where the element was a frame ago: Playwright scrolls the short frame to it, the resize
        scrolls it back. Checking the frame against the page alone is not enough: right after
        an action the view may not have measured itself or sent its size yet, and the old height
        still matches. Call this after an action that makes the view taller and before clicking
        what it revealed."""
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        element = await self.page.query_selector("#view")
        frame = await element.content_frame() if element else None
        assert frame is not None, "no view is open"
        for _ in range(SETTLE_TRIES):
            height = await frame.evaluate(VIEW_HEIGHT)
            try:
                await self.page.wait_for_function(REPORTED_AND_APPLIED, arg=[height, MAX_HEIGHT],
                                                  timeout=SETTLE_WAIT_MS)
            except PlaywrightTimeout:
                continue  # the view changed size meanwhile: measure it again
            if await frame.evaluate(VIEW_HEIGHT) == height:
                return
        reported = await self.page.evaluate(LAST_REPORTED)
        raise AssertionError(f"the view never settled: it measures {height}px, last reported "
                             f"{reported}")

    async def change_theme(self, theme: str) -> None:
        await self.page.evaluate("theme => window.changeContext({ theme })", theme)

    async def background(self) -> str:
        """The view's computed page background: proof it follows the host's variables."""
        frame = self.page.frame_locator("#view")
        return str(await frame.locator("body").evaluate("b => getComputedStyle(b).backgroundColor"))

    async def model_context(self) -> Any:
        return await self.page.evaluate("window.modelContext")

    async def screenshot(self, name: str) -> Path:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        path = self.artifacts / f"{name}{'-' + self.suffix if self.suffix else ''}.png"
        await self.page.screenshot(path=str(path), full_page=True)
        return path

    def assert_clean(self, allowed_requests: tuple[str, ...] = ()) -> None:
        """No script ran from data, no CSP was violated, the view reached nothing but its host
        (and what `allowed_requests` names), and it called only app-only tools of its server."""
        assert self.dialogs == [], f"a dialog fired: {self.dialogs}"
        assert self.console_errors == [], f"console errors: {self.console_errors}"
        host_page = (self.host_url, f"{self.host_url}host-bridge.js")
        stray = [u for u in self.requests
                 if u not in host_page and not u.startswith(allowed_requests or ("\0",))]
        assert stray == [], f"the view made requests: {stray}"
        for call in self.calls:
            visibility = self.tools[call.name].meta["ui"]["visibility"]
            assert visibility == ["app"], f"the view called {call.name} ({visibility})"

    def called(self, name: str) -> list[ToolCall]:
        return [c for c in self.calls if c.name == name]

    async def _forward(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """tools/call from the view. Like a real host, refuse tools the view may not call."""
        tool = self.tools.get(name)
        if tool is None:
            return {"rpcError": f"unknown tool {name}"}
        visibility = ((tool.meta or {}).get("ui") or {}).get("visibility", ["model", "app"])
        if "app" not in visibility:
            return {"rpcError": f"{name} is not callable from a view"}
        result = await self.client.call_tool(name, arguments)
        self.calls.append(ToolCall(name, arguments, bool(result.is_error)))
        return {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}

    async def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        await dialog.dismiss()

    def _on_request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)
