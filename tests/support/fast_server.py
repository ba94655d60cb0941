"""`python -m tests.support.fast_server DATA_DIR PORT [NEO4J_URI]`: the real app in its own
process, on the hashing embedder (no torch import), for tests that kill the server with
SIGKILL and start it again."""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from memspace.api.app import create_app
from memspace.bootstrap import build
from memspace.config import Settings
from tests.support.fakes import HashEmbedder


def main() -> None:
    data_dir, port = Path(sys.argv[1]), int(sys.argv[2])
    extra = {"store": "neo4j", "neo4j_uri": sys.argv[3]} if len(sys.argv) > 3 else {}
    settings = Settings(_env_file=None, data_dir=data_dir, **extra)  # type: ignore[arg-type]
    app = build(settings, embedder=HashEmbedder())
    uvicorn.run(create_app(app, warm_up=False), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
