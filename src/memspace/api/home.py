"""`GET /`: a short page for whoever opens the server's address in a browser, naming where
clients connect and where to read more."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from memspace import __version__

router = APIRouter()

PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memspace</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto; line-height: 1.5">
<h1>memspace {__version__}</h1>
<p>Shared, graph-shaped memory for teams of AI agents. This server answers:</p>
<ul>
<li><code>/mcp</code>: the MCP endpoint (streamable HTTP); clients send
<code>Authorization: Bearer msk_…</code> or sign in with OAuth</li>
<li><a href="/docs"><code>/docs</code></a>: the REST API under <code>/v1</code> (OpenAPI)</li>
<li><a href="/readyz"><code>/readyz</code></a>: ready, or what it is waiting for</li>
<li><a href="/console"><code>/console</code></a>: the views in a browser, signed in with a key</li>
</ul>
<p>Connecting a client, keys and spaces: the README of the memspace repository
(<code>README.md</code>, section <em>Connect your agents</em>).</p>
</body></html>
"""


@router.get("/", include_in_schema=False)
def home() -> HTMLResponse:
    """The page above; it needs no key and shows nothing of the store."""
    return HTMLResponse(PAGE)
