"""Driving the console (/console) in the browser tests: sign in, open a view, wait for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import expect

if TYPE_CHECKING:
    from playwright.async_api import ConsoleMessage, FrameLocator, Page

# How long the host page's frame must keep one height to count as settled (a few frames of
# the view's autoResize), and how many tries before a test gives up.
STEADY_MS = 300
SETTLE_TRIES = 30


@dataclass
class ConsoleTab:
    page: Page
    url: str  # the server's origin
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("console", self._on_console)
        self.page.on("dialog", self._on_dialog)

    async def sign_in(self, key: str) -> None:
        await self.page.goto(f"{self.url}/console")
        await self.page.get_by_label("Your API key").fill(key)
        await self.page.get_by_role("button", name="Sign in").click()
        await expect(self.page.get_by_text("Signed in as")).to_be_visible()

    async def open(self, space: str, view: str, query: str = "") -> FrameLocator:
        await self.page.goto(f"{self.url}/console/{space}/{view}{query}")
        return await self.ready()

    async def ready(self) -> FrameLocator:
        await expect(self.page.locator("body[data-ready=true]")).to_have_count(1)
        return self.page.frame_locator("#view")

    async def settled(self) -> None:
        """The frame has kept the height the view asked for over a few frames (autoResize): a
        click aimed while it still grows can land where the element was a frame ago."""
        frame = self.page.locator("#view")
        last = -1.0
        for _ in range(SETTLE_TRIES):
            height = await frame.evaluate("f => f.getBoundingClientRect().height")
            if height == last:
                return
            last = height
            await self.page.wait_for_timeout(STEADY_MS)
        raise AssertionError(f"the view never settled (last height {last}px)")

    async def session_cookie(self) -> dict[str, Any] | None:
        cookies = await self.page.context.cookies(f"{self.url}/console")
        return next((dict(c) for c in cookies if c["name"] == "memspace_console"), None)

    def assert_clean(self) -> None:
        """No script ran from data and no CSP was violated, in the page or in the view."""
        assert self.dialogs == [], f"a dialog fired: {self.dialogs}"
        assert self.errors == [], f"console errors: {self.errors}"

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    async def _on_dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        await dialog.dismiss()
