"""`pip install memspace-*.whl` is the whole product: built from the working tree, installed into
a fresh venv outside the repository, `memspace --version` answers and `memspace serve --demo`
serves the demo, its views and its search.

How the fresh venv gets its third-party packages, and why this still proves the wheel:
The dependencies are hundreds of MB, and tests never reach the
network, so installing the wheel's dependencies from an index is not an option here. The venv
is created WITHOUT --system-site-packages and without pip; the wheel goes in with --no-deps.
A `.pth` file then adds ONE folder to its path: links to every entry of this repository's venv
site-packages except memspace's own (its editable-install finder, its .pth hook, its metadata),
so the only memspace importable is the one from the wheel (asserted below), and third-party
packages keep their dist-info, which lets `pip check` prove that every `Requires-Dist` of the
wheel is met. Packaging (the files, the entry point, the metadata) is what is under test; the
resolution of the dependencies from an index is pip's job and is not re-run here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.support.packaging import REPO, build_wheel, stage_working_tree
from tests.support.server import data, mcp_client

pytestmark = [pytest.mark.e2e, pytest.mark.model]

OURS = re.compile(r"^(memspace|__editable__\.memspace|__editable___memspace|_memspace)", re.IGNORECASE)
# `serve --demo` loads the model and ingests six documents before it listens; measured
# ~40 s on a loaded 2-core machine. A deadline, not a sleep: the loop ends as soon as it answers.
STARTUP_S = 240


def _third_party_only(site_packages: Path, links: Path) -> Path:
    links.mkdir()
    for entry in site_packages.iterdir():
        if not OURS.match(entry.name) and not entry.name.endswith(".pth"):
            (links / entry.name).symlink_to(entry)
    return links


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (outside the repository) with the wheel in it; returns its bin/."""
    root = tmp_path_factory.mktemp("wheel")
    assert not root.resolve().is_relative_to(REPO)
    wheel = build_wheel(stage_working_tree(root / "tree"), root / "dist")
    env_dir = root / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "install", "--quiet", "--no-deps", str(wheel)], check=True, timeout=300,
                   env=_clean_env())
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(subprocess.run([str(python), "-c", purelib],
                               check=True, capture_output=True, text=True).stdout.strip())
    deps = _third_party_only(Path(sysconfig.get_paths()["purelib"]), root / "deps")
    (site / "third_party.pth").write_text(f"{deps}\n", encoding="utf-8")
    check = subprocess.run([*pip, "check"], capture_output=True, text=True, timeout=120,
                           env=_clean_env())
    assert check.returncode == 0, check.stdout + check.stderr
    return env_dir / "bin"


def _clean_env(**extra: str) -> dict[str, str]:
    """No MEMSPACE_* of the caller, no PYTHONPATH pointing back into the repository."""
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith("MEMSPACE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**keep, **extra}


def test_the_installed_wheel_is_its_own_memspace(installed: Path, tmp_path: Path) -> None:
    probe = ("import memspace; from memspace.llm.prompts import load_prompt; "
             "load_prompt('extract_facts.v1'); print(memspace.__file__)")
    where = subprocess.run([str(installed / "python"), "-c", probe],
                           cwd=tmp_path, env=_clean_env(), check=True, capture_output=True, text=True)
    assert Path(where.stdout.strip()).is_relative_to(installed.parent)  # and its prompt loads
    version = subprocess.run([str(installed / "memspace"), "--version"], cwd=tmp_path, env=_clean_env(),
                             check=True, capture_output=True, text=True)
    assert version.stdout.strip() == "memspace 0.1.0"


@pytest.fixture
def demo_server(installed: Path, tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """`memspace serve --demo` from the venv, on a free port; yields (base URL, demo keys)."""
    log = tmp_path / "serve.log"
    with log.open("w") as out:  # --port 0: the server binds a free port itself and names it
        process = subprocess.Popen(
            [str(installed / "memspace"), "serve", "--demo", "--port", "0"], cwd=tmp_path,
            env=_clean_env(MEMSPACE_DATA_DIR=str(tmp_path / "data")), stdout=out, stderr=subprocess.STDOUT)
    try:
        base = _served_at(process, log)
        _wait_ready(base, process, log)
        keys = dict(re.findall(r"^\s+(\S+)\s+(msk_\S+)$", log.read_text(), re.MULTILINE))
        yield base, keys
    finally:
        process.terminate()
        process.wait(timeout=30)


def _served_at(process: subprocess.Popen[bytes], log: Path) -> str:
    """The base URL `memspace serve` names once it has bound its port."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        named = re.search(r"MCP endpoint (http://127\.0\.0\.1:\d+)/mcp", log.read_text())
        if named:
            return named.group(1)
        assert process.poll() is None, f"memspace serve exited:\n{log.read_text()}"
        time.sleep(0.2)
    pytest.fail(f"memspace serve named no endpoint in {STARTUP_S} s:\n{log.read_text()}")


def _wait_ready(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        assert process.poll() is None, f"memspace serve exited:\n{log.read_text()}"
        try:
            if httpx2.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.5)
    pytest.fail(f"memspace serve did not answer /readyz in {STARTUP_S} s:\n{log.read_text()}")


async def test_serve_demo_from_the_wheel_answers_views_and_search(
        demo_server: tuple[str, dict[str, str]]) -> None:
    base, keys = demo_server
    assert httpx2.get(f"{base}/readyz").json()["status"] == "ready"
    assert "demo-agent" in keys, keys
    async with mcp_client(base, keys["demo-agent"]) as client:
        graph = (await client.read_resource("ui://memspace/memory-graph.html")).contents[0]
        assert graph.text.startswith("<!doctype html>")  # type: ignore[union-attr]
        found = data(await client.call_tool("search_memory", {"query": "CDN pricing",
                                                              "space": "acme-rebuild"}))
    assert found["results"], found
