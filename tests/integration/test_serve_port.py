"""`memspace serve --port 0`: the server binds a free port itself and names the one it serves on,
so a test (or a script) never hands it a port another process may take first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx2

import memspace

STARTUP_S = 120  # turns a hang into a failure; not a timing assert


def test_serve_on_port_0_names_the_port_it_listens_on(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSPACE_")}
    env |= {"MEMSPACE_DATA_DIR": str(tmp_path / "data"),
            # the memspace under test, wherever the test session imported it from
            "PYTHONPATH": os.pathsep.join([str(Path(memspace.__file__).parents[1]),
                                           env.get("PYTHONPATH", "")])}
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-c", "from memspace.cli.main import app; app()",
                                    "serve", "--port", "0"], cwd=tmp_path, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_S
        while not (named := re.search(r"MCP endpoint http://127\.0\.0\.1:(\d+)/mcp", log.read_text())):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        port = int(named.group(1))
        assert port != 0
        while True:
            assert process.poll() is None, log.read_text()
            try:
                answer = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        assert answer.status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
