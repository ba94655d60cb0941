"""/mcp accepts the console's own page behind a TLS proxy: a browser on the default port sends
its Origin without a port, which a `host:*` pattern alone would refuse."""

from __future__ import annotations

from memspace.startup.app import transport_security
from memspace.startup.container import build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder


def test_a_proxied_origin_without_a_port_is_accepted() -> None:
    settings = Settings(_env_file=None, allowed_hosts=["memspace.example.com"],  # type: ignore[call-arg]
                        public_url="https://memspace.example.com")
    app = build(settings, store=SqliteStore(":memory:"), embedder=HashEmbedder())
    try:
        origins = transport_security(app).allowed_origins
    finally:
        app.close()
    assert "https://memspace.example.com" in origins
    assert "https://memspace.example.com:*" in origins
    assert not any("evil" in o for o in origins)
