"""The console in a real browser: signing in with a key or a one-time link, the session cookie
and the pages' headers, a wrong key, a space the key cannot use, and the session ending at once
on sign-out or when the key is revoked (docs/operations.md, "Console sessions")."""

from __future__ import annotations

import uuid

import httpx
import pytest
from playwright.async_api import Page, expect

from memspace.surfaces.console import console_sessions
from tests.browser.conftest import Deployment
from tests.browser.console import ConsoleTab

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def check_headers(headers: dict[str, str], host_page: bool = False) -> None:
    policy = headers["content-security-policy"]
    directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    script = directives.get("script-src", "")
    assert "unsafe-inline" not in script and "unsafe-eval" not in script and "http" not in script
    if host_page:  # only hashes: the host page's one script and each view's
        assert script and all(s.startswith("'sha256-") for s in script.split())
    else:
        assert script == ""  # the sign-in page and the space list run no script at all
    assert headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-store"


async def test_a_key_signs_in_and_sees_its_spaces_with_safe_cookie_and_headers(
        deployment: Deployment, page: Page) -> None:
    mine, theirs = deployment.space("console-mine"), deployment.space("console-theirs")
    key = deployment.key("dana", {mine: "rw"})
    tab = ConsoleTab(page, deployment.url)
    first = await page.goto(f"{deployment.url}/console")
    assert first is not None and first.status == 200
    check_headers(await first.all_headers())
    await expect(page.locator("form input[name=key]")).to_have_count(1)
    await expect(page.get_by_text("memspace login-link --console")).to_be_visible()

    await page.get_by_label("Your API key").fill("msk_not_a_real_key")
    async with page.expect_response(f"{deployment.url}/console") as refused:
        await page.get_by_role("button", name="Sign in").click()
    assert (await refused.value).status == 401
    await expect(page.get_by_role("alert")).to_contain_text("Not signed in")
    assert await tab.session_cookie() is None
    tab.errors.clear()  # the browser logs the 401 it was meant to get

    await tab.sign_in(key)
    await expect(page.get_by_text(mine)).to_be_visible()
    await expect(page.get_by_text(theirs)).to_have_count(0)
    cookie = await tab.session_cookie()
    assert cookie is not None
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"], cookie["secure"]) == (
        True, "Strict", "/console", False)  # Secure only over https
    assert key not in str(await page.context.cookies())
    assert await page.evaluate("document.cookie") == ""  # nothing a script could read
    listing = await page.goto(f"{deployment.url}/console")
    assert listing is not None
    check_headers(await listing.all_headers())

    view = await page.goto(f"{deployment.url}/console/{mine}/graph")
    assert view is not None
    check_headers(await view.all_headers(), host_page=True)
    await tab.ready()
    assert key not in await page.content()
    tab.assert_clean()

    # A space without a grant answers word for word like one that does not exist.
    answers = []
    for slug in (theirs, "no-such-space-at-all"):
        missing = await page.goto(f"{deployment.url}/console/{slug}/graph")
        assert missing is not None and missing.status == 404
        answers.append((await page.locator("p.error").inner_text()).replace(slug, "SLUG"))
    assert answers[0] == answers[1]


async def test_a_login_link_signs_a_browser_straight_in(deployment: Deployment, page: Page) -> None:
    space = deployment.space("console-link")
    # A name of its own: a Neo4j kept between runs still holds the keys earlier runs made.
    name = f"erin-{uuid.uuid4().hex[:6]}"
    deployment.key(name, {space: "r"})
    made = console_sessions(deployment.app).link_for_key(name)
    link = f"{deployment.url}/console/login?code={made.code}"
    tab = ConsoleTab(page, deployment.url)
    await page.goto(link)
    assert await tab.session_cookie() is None  # opening it (a chat app's preview) uses nothing
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_text(f"Signed in as {name}")).to_be_visible()
    await expect(page.get_by_text(space)).to_be_visible()
    await expect(page.get_by_text("read only")).to_be_visible()
    tab.assert_clean()
    await page.context.clear_cookies()
    await page.goto(link)  # a second use is refused
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_contain_text("already used")


async def test_signing_out_ends_the_session_and_its_bearer_at_once(deployment: Deployment,
                                                                 page: Page) -> None:
    space = deployment.space("console-out")
    key = deployment.key("finn", {space: "rw"})
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    await tab.open(space, "conflicts")
    cookie = await tab.session_cookie()
    assert cookie is not None
    bearer = await renewed_bearer(page, deployment.url)
    assert await mcp_status(deployment.url, bearer) == 200
    # Without the session's CSRF value, a sign-out (as another site would send it) is refused.
    stolen = {"memspace_console": cookie["value"]}
    async with httpx.AsyncClient(base_url=deployment.url, cookies=stolen) as client:
        forged = await client.post("/console/sign-out", data={"csrf": "guess"})
        assert forged.status_code == 403
        assert (await client.post("/console/bearer")).status_code == 401
    assert await mcp_status(deployment.url, bearer) == 200

    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("status")).to_contain_text("Signed out")
    assert await tab.session_cookie() is None
    assert await mcp_status(deployment.url, bearer) == 401
    async with httpx.AsyncClient(base_url=deployment.url, cookies=stolen) as client:
        again = await client.get("/console")  # the old cookie, replayed
    assert "Sign in to the memspace console" in again.text
    tab.assert_clean()


async def test_revoking_the_key_ends_its_console_session_at_once(deployment: Deployment,
                                                                 page: Page) -> None:
    space = deployment.space("console-revoke")
    key = deployment.key("gus", {space: "rw"})
    tab = ConsoleTab(page, deployment.url)
    await tab.sign_in(key)
    await tab.open(space, "graph")
    bearer = await renewed_bearer(page, deployment.url)
    deployment.app.admin.revoke_key(key[:12])
    assert await mcp_status(deployment.url, bearer) == 401
    # The open tab may already be on its way to the sign-in form by itself (its next call met
    # the 401), so the cookie is tried from a second tab of the same browser: same session,
    # no navigation of its own to race.
    second = await page.context.new_page()
    await second.goto(f"{deployment.url}/console")
    await expect(second.get_by_label("Your API key")).to_be_visible()
    await second.goto(f"{deployment.url}/console/{space}/graph")
    await expect(second.get_by_label("Your API key")).to_be_visible()
    await second.close()


async def renewed_bearer(page: Page, url: str) -> str:
    """What the host page gets from /console/bearer (its CSRF value read from the page)."""
    return str(await page.evaluate("""async () => {
      const config = JSON.parse(document.getElementById("console-config").textContent);
      const answer = await fetch("/console/bearer", {method: "POST",
                                 headers: {"X-Memspace-CSRF": config.csrf}});
      return (await answer.json()).bearer;
    }"""))


async def mcp_status(url: str, bearer: str) -> int:
    """The status /mcp answers a ping with this bearer."""
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                   headers={"Authorization": f"Bearer {bearer}",
                                            "Accept": "application/json, text/event-stream",
                                            "MCP-Protocol-Version": "2025-11-25"})
    return answer.status_code
