"""The console's HTML: the sign-in page and the space list (no script at all), and the host
page that runs a view (src/memspace/widgets/console.html, built from widgets/src/console).

Content-Security-Policy: no page runs inline script except by hash. The host page's script and
each view's one inline script are allowed by their SHA-256, computed here from the built files.
A view is drawn in a sandboxed `srcdoc` frame, which inherits the host page's policy, so the
same hashes are what lets the view run there, and nothing else can.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from html import escape
from importlib import resources

from starlette.responses import HTMLResponse

from memspace.services.access import SpaceListing
from memspace.surfaces.views import CONFLICTS, GUIDED_SAVE, MEMORY_GRAPH, UPLOAD, VIEWS, View, view_html

# /console/{space}/<path> opens this view through this launcher tool.
CONSOLE_VIEWS: dict[str, tuple[View, str, str]] = {
    "graph": (MEMORY_GRAPH, "memory_graph_ui", "Graph"),
    "conflicts": (CONFLICTS, "conflicts_ui", "Conflicts"),
    "save": (GUIDED_SAVE, "guided_save_ui", "Save"),
    "upload": (UPLOAD, "upload_file_ui", "Upload"),
}
HOST_PAGE = "console"  # src/memspace/widgets/console.html
CONFIG_SLOT = '<main id="app"></main>'
INLINE_SCRIPT = re.compile(r"<script type=\"module\">(.*?)</script>", re.DOTALL)
PAGE_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
               "frame-ancestors 'none'; base-uri 'none'")
STYLE = """body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;
color:#1d1d1f}h1{font-size:1.3rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{padding:.5rem 1rem;margin:.75rem .5rem 0 0}.error{color:#b00020}.notice{color:#1b5e20}
.muted{color:#666;font-size:.9rem}table{border-collapse:collapse;width:100%}
td,th{padding:.35rem .5rem .35rem 0;text-align:left}nav a{margin-right:.6rem}
header{display:flex;justify-content:space-between;align-items:baseline}
header form button{margin:0}"""


def security_headers(policy: str) -> dict[str, str]:
    return {"Content-Security-Policy": policy, "X-Frame-Options": "DENY",
            "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff"}


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = (f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            f"content='width=device-width,initial-scale=1'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>")
    return HTMLResponse(html, status_code=status, headers=security_headers(PAGE_POLICY))


def sign_in_page(csrf: str, error: str | None = None, notice: str | None = None,
                 status: int = 200, after: str = "") -> HTMLResponse:
    said = (f"<p class=error role=alert>{escape(error)}</p>" if error else "") + \
        (f"<p class=notice role=status>{escape(notice)}</p>" if notice else "")
    return page("Sign in to the memspace console", said + f"""<form method=post action="/console">
<input type=hidden name=csrf value="{escape(csrf)}">
<input type=hidden name=next value="{escape(after)}">
<label for=key>Your API key (msk_…)</label>
<input id=key name=key type=password autocomplete=off required autofocus>
<button>Sign in</button></form>
<p class=muted>No key, or rather not paste one? Ask whoever runs memspace for a one-time link:
<code>memspace login-link --console --key YOUR_NAME</code> prints one that signs this browser in
directly. The key is never stored in the browser: the session ends when you sign out or the key
is revoked.</p>""", status)


def sign_out_form(csrf: str) -> str:
    return (f'<form method=post action="/console/sign-out"><input type=hidden name=csrf '
            f'value="{escape(csrf)}"><button>Sign out</button></form>')


def spaces_page(name: str, listing: SpaceListing, csrf: str) -> HTMLResponse:
    rows = "".join(
        f"<tr><td><b>{escape(s.space.slug)}</b><br><span class=muted>"
        f"{escape(s.space.description or '')}</span></td><td>{escape(_access_word(s.access.value))}"
        f"</td><td>{s.stats.active_memories}</td><td><nav>"
        + "".join(f'<a href="/console/{escape(s.space.slug)}/{path}">{label}</a>'
                  for path, (_, _, label) in CONSOLE_VIEWS.items())
        + "</nav></td></tr>" for s in listing.spaces)
    table = (f"<table><tr><th>Space</th><th>Access</th><th>Memories</th><th>Open</th></tr>"
             f"{rows}</table>" if rows else "<p>This key can use no space yet.</p>")
    return page("memspace console", f"<header><p>Signed in as <b>{escape(name)}</b></p>"
                f"{sign_out_form(csrf)}</header>{table}")


def not_found_page(message: str) -> HTMLResponse:
    """The access rules' own words for a missing space, which a space without a grant shares."""
    return page("Not found", f"<p class=error>{escape(message)}</p>"
                '<p><a href="/console">Your spaces</a></p>', 404)


def host_page(config: dict[str, object], public_origin: str) -> HTMLResponse:
    """The built host page with this view's configuration (data only, never script)."""
    data = json.dumps(config).replace("<", "\\u003c")
    html = host_template().replace(
        CONFIG_SLOT, f'<script type="application/json" id="console-config">{data}</script>'
        + CONFIG_SLOT, 1)
    return HTMLResponse(html, headers=security_headers(host_policy(public_origin)))


def host_policy(public_origin: str) -> str:
    scripts = " ".join(f"'{h}'" for h in script_hashes())
    return ("default-src 'none'; "
            f"script-src {scripts}; style-src 'unsafe-inline'; img-src data:; "
            # /mcp and the bearer's renewal; the upload view sends its file to /v1/documents at
            # the public origin (the same one, unless a proxy rewrites it).
            f"connect-src 'self' {public_origin}; "
            "form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'")


@cache
def host_template() -> str:
    return (resources.files("memspace") / "widgets" / f"{HOST_PAGE}.html").read_text("utf-8")


@cache
def script_hashes() -> tuple[str, ...]:
    """'sha256-…' of the host page's inline script and of every view's."""
    pages = [host_template(), *(view_html(v) for v in VIEWS)]
    return tuple(f"sha256-{_b64sha(m)}" for text in pages for m in INLINE_SCRIPT.findall(text))


def _b64sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def _access_word(value: str) -> str:
    return {"readwrite": "read and write", "read": "read only"}.get(value, value)
