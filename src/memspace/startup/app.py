"""The FastAPI application: REST routes, /mcp (streamable HTTP), key auth in front of both."""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
from collections.abc import AsyncIterator, Callable

import anyio.to_thread
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from mcp.server.transport_security import TransportSecuritySettings

from memspace import __version__
from memspace.api.apps_session import AppsSession
from memspace.api.auth import ApiKeyMiddleware
from memspace.api.conflict_routes import router as conflicts_router
from memspace.api.console import console_setup
from memspace.api.cors import UploadCors
from memspace.api.documents import router as documents_router
from memspace.api.errors import memspace_error_handler, request_shape_handler
from memspace.api.evidence_routes import router as evidence_router
from memspace.api.home import router as home_router
from memspace.api.metrics import add_metrics_route
from memspace.api.oauth import oauth_setup
from memspace.api.rate_limit import FailedSignIns, RateLimiter
from memspace.api.routes import router
from memspace.api.workflow_routes import router as workflow_router
from memspace.domain.errors import MemspaceError
from memspace.mcp.server import build_mcp_server
from memspace.startup.container import Container

log = logging.getLogger(__name__)
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


def transport_security(app: Container) -> TransportSecuritySettings:
    """Host/Origin checks against DNS rebinding: local names, the bind host, and any extras."""
    names = {*LOCAL_NAMES, app.settings.host, *app.settings.allowed_hosts}
    names.discard("0.0.0.0")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted({f"{n}:*" for n in names} | names),
        # A browser page served on the default port (the console behind a TLS proxy) sends
        # its Origin without one, which a `:*` pattern does not match.
        allowed_origins=sorted({f"{scheme}://{n}{port}" for n in names for scheme in ("http", "https")
                                for port in (":*", "")}),
    )


def create_app(container: Container, warm_up: bool = True) -> FastAPI:
    """One app per container. `warm_up` loads the model and vector caches in the background."""
    mcp_server = build_mcp_server(container)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True,
        transport_security=transport_security(container), host=container.settings.host)

    # /readyz says "starting" until the model and vector caches are loaded: a load balancer or
    # a client waiting for readiness then gets a first search as fast as any other (the
    # first search came 4.0 s after /readyz when readiness meant only "the store answers").
    warmed = threading.Event()
    if not warm_up:
        warmed.set()

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if warm_up and not warmed.is_set():
            threading.Thread(target=_warm, args=(container, warmed), daemon=True).start()
        container.worker.start()  # resumes documents an earlier run left unfinished
        container.schedule.start()  # consolidation passes (MEMSPACE_CONSOLIDATE_EVERY)
        try:
            async with mcp_server.session_manager.run():
                yield
        finally:
            await anyio.to_thread.run_sync(container.schedule.stop)
            await anyio.to_thread.run_sync(container.worker.stop)

    app = FastAPI(
        title="memspace",
        version=__version__,
        summary="Shared, graph-shaped memory for teams of AI agents. MCP at /mcp.",
        lifespan=lifespan,
    )
    app.state.container = container
    app.state.warmed = warmed
    app.add_exception_handler(MemspaceError, memspace_error_handler)
    app.add_exception_handler(RequestValidationError, request_shape_handler)
    app.include_router(router)
    app.include_router(documents_router)
    app.include_router(workflow_router)
    app.include_router(evidence_router)
    app.include_router(conflicts_router)
    app.include_router(home_router)  # GET /: where to connect and read more
    failures = FailedSignIns(container.settings.auth_failure_limit)
    oauth = oauth_setup(container, failures)  # before the catch-all mount below
    app.router.routes.extend(oauth[1] if oauth else [])
    console, console_routes = console_setup(container, failures)  # the views in a browser
    app.router.routes.extend(console_routes)
    add_metrics_route(app, container)  # MEMSPACE_METRICS=true
    app.mount("/", mcp_app)
    limit = container.settings.rate_limit  # MEMSPACE_RATE_LIMIT, per key or OAuth client
    app.add_middleware(ApiKeyMiddleware, access=container.access, tickets=container.uploads,
                       oauth=oauth[0] if oauth else None,
                       limiter=RateLimiter(limit) if limit else None, failures=failures,
                       console=console)
    app.add_middleware(AppsSession)  # which clients are shown the views (mcp/toolsets.py)
    app.add_middleware(UploadCors)  # outermost: a refused upload still tells the browser why
    return app


def _warm(container: Container, warmed: threading.Event) -> None:
    """Model and vector caches loaded in the background, so first requests don't wait for them.
    The two load side by side: the model is mostly file reads, the caches mostly store reads,
    so the first search waits for the longer of them, not their sum.
    `warmed` is set when both are done, or failed (requests then load lazily)."""
    try:
        caches = threading.Thread(target=_warm_step, args=(container.search.warm_up,),
                                  daemon=True)
        caches.start()
        if hasattr(container.embedder, "warm_up"):
            _warm_step(container.embedder.warm_up)
        caches.join()
        _settle_heap()
    finally:
        warmed.set()


def _settle_heap() -> None:
    """What start-up built (modules, the model, the caches) is kept for the process's life:
    move it out of the garbage collector's reach. Otherwise each full collection walks all of
    it, and requests allocate enough to trigger one every ~20 adds: measured on Neo4j at
    100,000 memories, 37 and 51 ms pauses in 40 adds (add p95 126 ms), none after a freeze
    (p95 85 ms). Objects made later are still collected as usual."""
    gc.collect()
    gc.freeze()


def _warm_step(step: Callable[[], None]) -> None:
    try:
        step()
    except MemspaceError as exc:
        log.error("warm-up incomplete (requests will load lazily): %s", exc.message)
    except Exception:  # readiness must not wait for ever on a warm-up that cannot finish
        log.exception("warm-up failed (requests will load lazily)")
