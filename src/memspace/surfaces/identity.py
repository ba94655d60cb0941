"""Where a request's caller travels from the HTTP middleware (api/auth.py) to whoever serves
the request: REST routes (api/deps.py) and MCP tools (mcp/identity.py)."""

from __future__ import annotations

import contextvars

from memspace.services.access import Principal

# Where the middleware leaves the caller's Principal: the request's ASGI state, read by REST
# routes (api.deps) and MCP tools (mcp.identity) ...
PRINCIPAL_STATE_KEY = "memspace.principal"
# ... and, for handlers the SDK gives no request (static resources), this context variable: set
# for the request, and copied by the SDK into the task that serves it.
current_principal: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "memspace_principal", default=None
)

# The scope-state key a rate-limited MCP request carries to the tools (api/rate_limit.py) ...
RATE_LIMITED_STATE_KEY = "memspace.rate_limited"
# ... and, for the resources and the prompt, which the SDK serves without the request, the same
# wait in seconds (0: not limited).
current_wait: contextvars.ContextVar[int] = contextvars.ContextVar("memspace_wait", default=0)

# The scope-state key of an /mcp request whose client negotiated MCP Apps in a handshake-era
# `initialize` (api/apps_session.py); tools/list then shows the views (mcp/toolsets.py).
APPS_STATE_KEY = "memspace.apps"
