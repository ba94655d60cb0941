"""`python -m tests.support.fast_server DATA_DIR [NEO4J_URI]`: the real app in its own process,
on the hashing embedder (no torch import), for tests that kill the server with SIGKILL and start
it again. It binds a free port itself and prints `listening on PORT` once it has."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import uvicorn

from memspace.startup.app import create_app
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder


def main() -> None:
    data_dir = Path(sys.argv[1])
    extra = {"store": "neo4j", "neo4j_uri": sys.argv[2]} if len(sys.argv) > 2 else {}
    settings = Settings(_env_file=None, data_dir=data_dir, **extra)  # type: ignore[arg-type]
    app = build(settings, embedder=HashEmbedder())
    listening = socket.create_server(("127.0.0.1", 0))
    print(f"listening on {listening.getsockname()[1]}", flush=True)
    config = uvicorn.Config(create_app(app, warm_up=False), log_level="warning")
    uvicorn.Server(config).run(sockets=[listening])


if __name__ == "__main__":
    main()
