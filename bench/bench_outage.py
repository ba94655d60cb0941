"""How fast a Neo4j outage is reported, and how fast memspace recovers, on a Neo4j of its own.

Starts tools/neo4j-local on a free port with a temporary data folder (the shared server is never
touched), saves a memory, kills the server with SIGKILL (as when a machine dies) and times:
  - the first search after the kill, until it answers `unavailable` (the retry window),
  - a second search while the server is known down (one attempt),
  - /readyz-style ping the same way,
then restarts the server and times the first search that succeeds again (no memspace restart).
Figures, not asserts; the bound itself is tested in tests/unit/test_neo4j_retry.py. Take the
figure on an idle machine: a loaded one stretches the connection attempts.

    .venv/bin/python bench/bench_outage.py [--window 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.fakes import HashEmbedder  # noqa: E402

from memspace.domain.errors import Unavailable  # noqa: E402
from memspace.services.access.access import AccessService  # noqa: E402
from memspace.services.search.search import SearchRequest  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

LOCAL = ROOT / "tools" / "neo4j-local"


def timed_failure(call: Callable[[], object]) -> float:
    started = time.monotonic()
    try:
        call()
    except Unavailable:
        return time.monotonic() - started
    raise SystemExit("the call succeeded during the outage: the server was not down")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=5.0, help="MEMSPACE_NEO4J_RETRY_WINDOW_S")
    parser.add_argument("--rounds", type=int, default=3, help="kill/restart rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        env = {**os.environ, "NEO4J_LOCAL_PORT": str(port),
               "NEO4J_LOCAL_DATA_DIR": f"{folder}/data", "NEO4J_LOCAL_PID_FILE": f"{folder}/neo4j.pid",
               "NEO4J_LOCAL_LOG_FILE": f"{folder}/neo4j.log"}

        def start() -> None:
            subprocess.run([str(LOCAL / "start.sh")], env=env, check=True, capture_output=True, timeout=600)

        start()
        settings = Settings(_env_file=None, store="neo4j", neo4j_uri=f"bolt://127.0.0.1:{port}",  # type: ignore[call-arg]
                            neo4j_retry_window_s=args.window, data_dir=Path(folder) / "memspace")
        app = build(settings, embedder=HashEmbedder())
        operator = AccessService.operator()
        app.admin.create_space("ops")
        app.memories.add(operator, "The pager rotates weekly", "ops")

        def search() -> object:
            return app.search.search(operator, SearchRequest(query="pager", space="ops"))

        first, again, ping, back = [], [], [], []
        try:
            for _ in range(args.rounds):
                os.kill(int(Path(env["NEO4J_LOCAL_PID_FILE"]).read_text()), signal.SIGKILL)
                first.append(timed_failure(search))
                again.append(timed_failure(search))
                ping.append(timed_failure(app.store.ping))
                start()
                started = time.monotonic()
                while True:  # the first search that answers after the restart
                    try:
                        search()
                        break
                    except Unavailable:
                        continue
                back.append(time.monotonic() - started)
        finally:
            app.close()
            subprocess.run([str(LOCAL / "stop.sh")], env=env, check=False, capture_output=True, timeout=120)

    def row(name: str, values: list[float]) -> None:
        print(f"{name:<44} median {statistics.median(values):5.2f} s  max {max(values):5.2f} s")

    print(f"Neo4j outage, retry window {args.window:g} s, {args.rounds} kill/restart rounds "
          f"({os.cpu_count()} cores)")
    row("first search after SIGKILL answers unavailable", first)
    row("next search while known down", again)
    row("readiness ping while known down", ping)
    row("first search answered after the restart", back)


if __name__ == "__main__":
    main()
