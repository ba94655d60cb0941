"""Where a `memspace login-link` lands: a page with one button. Opening the link uses nothing up
(chat apps fetch links to preview them); pressing Sign in redeems it once and remembers, in this
browser, whom it signed in as, so the consent page offers "Continue as …"."""

from __future__ import annotations

from html import escape

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from memspace.api.oauth.consent import (
    CSRF_COOKIE,
    SIGNIN_COOKIE,
    browser_csrf,
    render_page,
    set_browser_cookie,
)
from memspace.api.oauth.signing import Signer, same_text
from memspace.domain.errors import MemspaceError
from memspace.services.access import LINK_IN_TEXT, OAuthService

LOGIN_PATH = "/authorize/login"
NEXT_STEP = ("Go back to the memspace consent page your MCP client opened and choose "
             "<b>Continue</b> (reload it if the button is not there yet). No consent page open? "
             "Connect memspace in your MCP client first.")


class LoginLinkPage:
    def __init__(self, oauth: OAuthService, signer: Signer, issuer: str) -> None:
        self._oauth = oauth
        self._signer = signer
        self._issuer = issuer

    async def show(self, request: Request) -> Response:
        code = LINK_IN_TEXT.search(request.query_params.get("code", ""))
        if code is None:
            return render_page("memspace sign-in link", "<p class=error>This link is incomplete: "
                               "copy the whole link the CLI printed.</p>", 400)
        csrf = browser_csrf(request)
        response = render_page("Sign in to memspace", (
            f'<form method=post action="{LOGIN_PATH}"><input type=hidden name=code '
            f'value="{escape(code.group(0))}"><input type=hidden name=csrf value="{escape(csrf)}">'
            "<p>This one-time link signs this browser in to memspace, to approve an MCP client."
            "</p><button>Sign in</button></form>"))
        set_browser_cookie(response, CSRF_COOKIE, csrf, self._issuer)
        return response

    async def submit(self, request: Request) -> Response:
        form = await request.form()
        code, sent = form.get("code"), form.get("csrf")
        csrf = request.cookies.get(CSRF_COOKIE, "")
        if not (isinstance(code, str) and isinstance(sent, str) and csrf
                and same_text(csrf, sent)):
            return render_page("Refused", "<p class=error>Open the sign-in link again.</p>", 403)
        try:
            who = await anyio.to_thread.run_sync(self._oauth.sign_in, code)
        except MemspaceError as exc:
            return render_page("Not signed in", f"<p class=error>{escape(exc.message)}</p>", 401)
        assert who.key_id is not None
        response = render_page("Signed in", f"<p>Signed in as <b>{escape(who.name)}</b>.</p>"
                               f"<p>{NEXT_STEP}</p>")
        set_browser_cookie(response, SIGNIN_COOKIE,
                           self._signer.sign("signin", {"k": who.key_id, "x": csrf}), self._issuer)
        return response
