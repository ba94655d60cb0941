"""The consent page: sign in (an API key or a `memspace login-link`), choose spaces and access,
approve or deny. Server-rendered HTML with inline styles and no script or external asset.

CSRF: the GET sets a random cookie (HttpOnly, SameSite=Strict) and puts the same value in the
form; a POST whose field and cookie differ is refused. The pending request and the signed-in
identity travel as signed values (signing.py), the identity bound to that cookie value, so a
form copied to another browser or altered in transit is refused too.
"""

from __future__ import annotations

import secrets
from html import escape
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.auth.provider import construct_redirect_uri
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from memspace.api.oauth.signing import SIGNED_TTL_S, Signer, same_text
from memspace.api.rate_limit import FailedSignIns
from memspace.domain.errors import MemspaceError
from memspace.domain.models import Access
from memspace.services.access import AccessService, OAuthService

CSRF_COOKIE = "memspace_csrf"
# Set by opening a login link and pressing Sign in (login_link.py): the consent page then
# offers "Continue as …" instead of asking for the link to be pasted.
SIGNIN_COOKIE = "memspace_signin"
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
STYLE = """body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;
color:#1d1d1f}h1{font-size:1.3rem}input[type=password],input[type=text]{width:100%;padding:.5rem;
box-sizing:border-box}button{padding:.5rem 1rem;margin:.75rem .5rem 0 0}.error{color:#b00020}
table{border-collapse:collapse;width:100%}td{padding:.3rem 0}.muted{color:#666;font-size:.9rem}"""


class ConsentPage:
    def __init__(self, oauth: OAuthService, access: AccessService, signer: Signer, issuer: str,
                 resource: str, failures: FailedSignIns | None = None) -> None:
        self._failures = failures  # a pasted key is limited like one sent to /mcp or /v1
        self._oauth = oauth
        self._access = access
        self._signer = signer
        self._issuer = issuer
        self._resource = resource

    async def show(self, request: Request) -> Response:
        pending = self._signer.verify("consent", request.query_params.get("request", ""))
        if pending is None:
            return render_page("Link expired", "<p class=error>This consent link is invalid or "
                               "has expired. Start connecting again from your MCP client.</p>", 400)
        csrf = browser_csrf(request)
        response = await self._sign_in_form(request.query_params["request"], pending, csrf, None,
                                            self._signed_in(request, csrf))
        set_browser_cookie(response, CSRF_COOKIE, csrf, self._issuer)
        return response

    def _signed_in(self, request: Request, csrf: str) -> str | None:
        """The key a login link signed this browser in as, if it did (bound to its cookie)."""
        identity = self._signer.verify("signin", request.cookies.get(SIGNIN_COOKIE, ""))
        if identity is None or not same_text(str(identity.get("x", "")), csrf):
            return None
        return str(identity["k"])

    async def submit(self, request: Request) -> Response:
        form = await request.form()
        field = {k: v for k, v in form.items() if isinstance(v, str)}
        csrf = request.cookies.get(CSRF_COOKIE, "")
        raw_request = field.get("request", "")
        pending = self._signer.verify("consent", raw_request)
        if not csrf or not same_text(csrf, field.get("csrf", "")) or pending is None:
            return render_page("Refused", "<p class=error>This form expired or did not come from "
                               "this browser's consent page. Start connecting again from your MCP "
                               "client.</p>", 403)
        if field.get("step") == "deny":
            return self._back(pending, error="access_denied",
                              error_description="the person declined")
        if field.get("step") == "link":
            linked = self._signed_in(request, csrf)
            if linked is None:
                return await self._sign_in_form(raw_request, pending, csrf, "the sign-in from your "
                                                "link has expired: open the link again, or paste it")
            return await self._choose_form(raw_request, pending, csrf, linked, None)
        if field.get("step") == "signin":
            credential = str(field.get("credential", ""))
            address = request.client.host if request.client else "unknown"
            if self._failures is not None and (wait := self._failures.blocked(address, credential)):
                # Answered like /mcp and /v1 over the limit: 429 and when to try again, the
                # credential not even checked.
                page = await self._sign_in_form(raw_request, pending, csrf, "too many failed "
                                                f"sign-ins; try again in {wait} s")
                page.status_code = 429
                page.headers["Retry-After"] = str(wait)
                return page
            try:
                who = await anyio.to_thread.run_sync(self._oauth.sign_in, credential)
            except MemspaceError as exc:
                if self._failures is not None:
                    self._failures.failed(address, credential)
                return await self._sign_in_form(raw_request, pending, csrf, exc.message)
            assert who.key_id is not None
            return await self._choose_form(raw_request, pending, csrf, who.key_id, None)
        identity = self._signer.verify("identity", field.get("identity", ""))
        if (field.get("step") != "approve" or identity is None
                or not same_text(str(identity.get("x", "")), csrf)):
            return render_page("Refused", "<p class=error>Sign in again.</p>", 403)
        wanted = {name[len("grant:"):]: Access(value) for name, value in field.items()
                  if name.startswith("grant:") and value in (Access.READ, Access.READWRITE)}
        try:
            code = await anyio.to_thread.run_sync(
                lambda: self._oauth.approve(pending["c"], identity["k"], wanted, pending["r"],
                                            pending["p"], self._resource))
        except MemspaceError as exc:
            return await self._choose_form(raw_request, pending, csrf, identity["k"], exc.message)
        return self._back(pending, code=code)

    def _back(self, pending: dict[str, str], **params: str) -> Response:
        url = construct_redirect_uri(pending["r"], **params, state=pending.get("s"), iss=self._issuer)
        return RedirectResponse(url, status_code=302, headers={"Cache-Control": "no-store"})

    async def _client_line(self, pending: dict[str, str]) -> str:
        client = await anyio.to_thread.run_sync(self._oauth.client, pending["c"])
        name = client.name if client else "an unknown client"
        target = urlsplit(pending["r"])
        where = target.netloc or f"{target.scheme}:"
        return (f"<p><b>{escape(name)}</b> wants to use your memspace memory. It will be sent "
                f"back to <b>{escape(where)}</b>.</p>")

    async def _sign_in_form(self, raw_request: str, pending: dict[str, str], csrf: str,
                            error: str | None, linked: str | None = None) -> HTMLResponse:
        cont = ""
        if linked is not None:
            try:
                who = await anyio.to_thread.run_sync(self._oauth.identity, linked)
                cont = (f'<form method=post action="/authorize/consent">{_hidden(raw_request, csrf)}'
                        f"<button name=step value=link>Continue as {escape(who.name)}</button></form>"
                        "<p class=muted>or sign in another way:</p>")
            except MemspaceError:
                cont = ""
        body = (await self._client_line(pending)
                + (f"<p class=error>{escape(error)}</p>" if error else "") + cont
                + f"""<form method=post action="/authorize/consent">{_hidden(raw_request, csrf)}
<label for=credential>Sign in with your API key (msk_…) or a one-time link from
<code>memspace login-link</code></label>
<input id=credential name=credential type=password autocomplete=off required autofocus>
<button name=step value=signin>Sign in</button></form>
<form method=post action="/authorize/consent">{_hidden(raw_request, csrf)}
<button name=step value=deny>Deny</button></form>""")
        return render_page("Connect to memspace", body, 401 if error else 200)

    async def _choose_form(self, raw_request: str, pending: dict[str, str], csrf: str, key_id: str,
                           error: str | None) -> HTMLResponse:
        try:
            who = await anyio.to_thread.run_sync(self._oauth.identity, key_id)
            spaces = await anyio.to_thread.run_sync(self._access.visible_spaces, who)
        except MemspaceError as exc:
            return await self._sign_in_form(raw_request, pending, csrf, exc.message)
        identity = self._signer.sign("identity", {"k": key_id, "x": csrf})
        rows = "".join(_select(s.space.slug, s.access) for s in spaces)
        body = (await self._client_line(pending)
                + f"<p>Signed in as <b>{escape(who.name)}</b>. Choose what this client may use:</p>"
                + (f"<p class=error>{escape(error)}</p>" if error else "")
                + f"""<form method=post action="/authorize/consent">{_hidden(raw_request, csrf)}
<input type=hidden name=identity value="{escape(identity)}"><table>{rows}</table>
<p class=muted>Never more than your own access. Revoke any time: <code>memspace oauth revoke</code>.</p>
<button name=step value=approve>Approve</button><button name=step value=deny>Deny</button></form>""")
        return render_page("Choose spaces", body, 400 if error else 200)


def _select(slug: str, held: Access) -> str:
    """One space's choice, preset to what the signed-in key holds; read-write only if held."""
    options = [("none", "no access"), ("read", "read")]
    if held.can_write:
        options.append(("readwrite", "read and write"))
    html = "".join(f"<option value={v}{' selected' if v == held.value else ''}>{label}</option>"
                   for v, label in options)
    return (f"<tr><td><label for='g-{escape(slug)}'>{escape(slug)}</label></td><td><select "
            f"id='g-{escape(slug)}' name='grant:{escape(slug)}'>{html}</select></td></tr>")


def browser_csrf(request: Request) -> str:
    """This browser's CSRF value: kept while it lasts, so two open pages do not undo each other."""
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)


def set_browser_cookie(response: Response, name: str, value: str, issuer: str) -> None:
    response.set_cookie(name, value, max_age=SIGNED_TTL_S, httponly=True, samesite="strict",
                        path="/authorize", secure=issuer.startswith("https://"))


def _hidden(raw_request: str, csrf: str) -> str:
    return (f'<input type=hidden name=request value="{escape(raw_request)}">'
            f'<input type=hidden name=csrf value="{escape(csrf)}">')


def render_page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = (f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            f"content='width=device-width,initial-scale=1'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>")
    return HTMLResponse(html, status_code=status, headers=HEADERS)
