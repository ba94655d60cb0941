"""Real parts for the view tests: Debian's headless Chromium driven by Playwright, the built
views inside a test MCP Apps host page, and the real app under uvicorn answering over MCP."""

from __future__ import annotations

import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memspace.domain.models import Access
from memspace.embeddings.local import LocalEmbedder
from memspace.services.access.access import Principal
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.browser.viewhost import ViewHost
from tests.conftest import skip_or_fail
from tests.support.server import bound_socket, mcp_client, running_server
from tests.support.stores import PATIENT_SETTINGS

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's own browser download cannot work here; Debian's chromium can. Without the
# background-networking flags it keeps calling home, which on a closed network floods the log.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HOST_PAGE = Path(__file__).with_name("host.html")
# The SDK's AppBridge, bundled (tests/browser/build-host.mjs); host.html loads it.
HOST_BRIDGE = Path(__file__).with_name("host-bridge.js")
ARTIFACTS = Path(__file__).parents[1] / "artifacts"

pytestmark = pytest.mark.browser


EXPECT_TIMEOUT_MS = 20_000


def _installed(program: Path) -> bool:
    return program.is_file()


@pytest.fixture(scope="session")
async def chromium() -> AsyncIterator[Browser]:
    if not _installed(CHROMIUM):
        skip_or_fail(f"{CHROMIUM} is missing (`make browser` installs Debian's chromium)")
    try:
        from playwright.async_api import async_playwright, expect
    except ImportError:
        skip_or_fail("Playwright for Python is not installed (`make install`)")
    # Playwright's 5 s default for `expect` is shorter than a search or a save that runs MiniLM on
    # two loaded cores; a wait that ends early fails, one that ends in time costs nothing more.
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        await browser.close()


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """all-MiniLM-L6-v2, loaded once for the browser session."""
    model = LocalEmbedder()
    model.warm_up()
    return model


@dataclass
class Deployment:
    url: str
    app: Container

    def space(self, slug: str, description: str = "") -> str:
        """A space with a unique slug (a Neo4j database outlives one run)."""
        unique = f"{slug}-{uuid.uuid4().hex[:6]}"
        self.app.admin.create_space(unique, description=description)
        return unique

    def key(self, name: str, grants: dict[str, str]) -> str:
        levels = {"rw": Access.READWRITE, "r": Access.READ}
        return self.app.admin.create_key(name, {s: levels[g] for s, g in grants.items()}).raw

    def principal(self, raw_key: str) -> Principal:
        return self.app.access.authenticate(raw_key)


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)], scope="module")
def deployment(request: pytest.FixtureRequest, embedder: LocalEmbedder,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    # The port is chosen first: the upload view's CSP names the server's origin, and that
    # comes from Settings, as in production.
    sock = bound_socket()
    port = int(sock.getsockname()[1])
    # Both stores keep uploads in a temporary folder, never in the checkout's ./data.
    data_dir = tmp_path_factory.mktemp("browser")
    if request.param == "sqlite":
        settings = Settings(_env_file=None, port=port, data_dir=data_dir)  # type: ignore[call-arg]
    else:
        settings = Settings(_env_file=None, port=port, store="neo4j",  # type: ignore[call-arg]
                            **PATIENT_SETTINGS,
                            neo4j_uri=request.getfixturevalue("neo4j_uri"), data_dir=data_dir)
    app = build(settings, embedder=embedder)
    with running_server(app, sock=sock) as url:
        yield Deployment(url, app)
    app.close()


@pytest.fixture(scope="session")
def host_url() -> Iterator[str]:
    """The test host page, served from loopback like a desktop host's own page would be: a page
    on a public origin may not reach a server on 127.0.0.1 without the user's permission
    (Chromium's local network access rules), which is the host's business, not the views'."""
    files = {"/": (HOST_PAGE.read_bytes(), "text/html; charset=utf-8"),
             f"/{HOST_BRIDGE.name}": (HOST_BRIDGE.read_bytes(), "text/javascript; charset=utf-8")}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = files.get(self.path, (b"", "text/plain"))
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", kind)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
async def page(chromium: Browser) -> AsyncIterator[Page]:
    """A fresh browser tab."""
    context = await chromium.new_context(viewport={"width": 800, "height": 900})
    tab = await context.new_page()
    yield tab
    await context.close()


OpenView = Callable[[str], AbstractAsyncContextManager[ViewHost]]


@pytest.fixture
def open_view(page: Page, deployment: Deployment, host_url: str,
              request: pytest.FixtureRequest) -> OpenView:
    """`async with open_view(key) as host:` the test host, talking MCP to the server with `key`."""
    store = request.node.callspec.params.get("deployment", "sqlite")

    @asynccontextmanager
    async def opened(key: str) -> AsyncIterator[ViewHost]:
        # As hosts that draw views do today: the handshake-era protocol, MCP Apps declared in
        # `initialize` (the server is stateless, so this also checks that the views stay listed
        # on the requests after it).
        async with mcp_client(deployment.url, key, apps=True, mode="legacy") as client:
            host = ViewHost(page, client, host_url, ARTIFACTS, suffix=store)
            await host.attach()
            yield host

    return opened
