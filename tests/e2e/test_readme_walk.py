"""The README walked as a newcomer walks it, in a fresh shell: a home folder of its own (so a fresh
data folder), nothing on PATH but the system and what the README's first block links, no
MEMSPACE_* variable. `make install-cli` and `make run` (their recipes; the venv is the one the
tests run in, and the embedding model comes from its cache), `/readyz` and `/`, the Claude Code
line with the demo-agent key and the stdio line, each run by the MCP Inspector CLI from another
folder and asked the README's first question, the CLI workflow, the spaces-and-keys block, every
`memspace …` command the text gives, and a busy port with the Troubleshooting line's way out.
Commands are read from README.md itself, so the README is what is tested."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from memspace.embeddings.fetch import models_dir
from tests.conftest import skip_or_fail

pytestmark = [pytest.mark.model, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
INSPECTOR = (ROOT / "tools" / "inspector" / "node_modules" / "@modelcontextprotocol"
             / "inspector-cli" / "build" / "cli.js")
STARTUP_S = 180  # turns a hang into a failure; not a timing assert
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README, flags=re.DOTALL)


def block_with(text: str) -> list[str]:
    """The commands of the README's bash block holding `text`, comments dropped, one a line."""
    [block] = [b for b in blocks() if text in b]
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line]


@dataclass
class Shell:
    home: Path
    port: int

    @property
    def env(self) -> dict[str, str]:
        """A login shell's environment after the README's first block: no MEMSPACE_* setting
        beyond the port (8000 may be taken on a test machine) and the model cache."""
        return {"HOME": str(self.home), "PATH": f"{self.home}/.local/bin:{SYSTEM_PATH}",
                "LANG": "C.UTF-8", "MEMSPACE_PORT": str(self.port),
                "MEMSPACE_MODELS_DIR": str(models_dir())}

    def run(self, command: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        command = command.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}")
        return subprocess.run(["bash", "-c", command], cwd=cwd, env=self.env, capture_output=True,
                              text=True, timeout=timeout, check=False)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Served:
    shell: Shell
    keys: dict[str, str]
    elsewhere: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The first block run as written: `make install-cli`, then `make run` in the clone."""
    if shutil.which("make") is None:
        skip_or_fail("make is not installed")
    home = tmp_path_factory.mktemp("home")
    shell = Shell(home, free_port())
    elsewhere = tmp_path_factory.mktemp("another-project")
    first = block_with("make run")
    assert first[0].startswith("git clone") and first[1:] == ["make install-cli", "make run"]
    # `install` (the venv and the model) is what the tests already run in: its recipe is skipped
    linked = shell.run("make -o install --no-print-directory install-cli", cwd=ROOT)
    assert linked.returncode == 0, linked.stderr
    assert (home / ".local" / "bin" / "memspace").resolve() == (ROOT / ".venv" / "bin" / "memspace").resolve()
    # a clone that ran before the user's data folder keeps its ./data; this walk needs a fresh one
    clone = ROOT if not (ROOT / "data" / "memspace.db").exists() else tmp_path_factory.mktemp("clone")
    command = "make -o install --no-print-directory -C " + shlex.quote(str(ROOT)) + " run"
    log = home / "make-run.log"
    with log.open("w") as out:
        server = subprocess.Popen(["bash", "-c", command], cwd=clone, env=shell.env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_S
        while "MCP endpoint" not in log.read_text():
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        printed = log.read_text()
        keys = dict(re.findall(r"^\s+(demo-agent|coding-agent|support-bot)\s+(msk_\S+)", printed,
                               re.MULTILINE))
        assert set(keys) == {"demo-agent", "coding-agent", "support-bot"}, printed
        assert (home / ".local" / "share" / "memspace" / "memspace.db").exists()
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{shell.port}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield Served(shell, keys, elsewhere)
    finally:
        stop(server)


def test_the_readyz_line_and_the_root_page_answer(served: Served) -> None:
    [(line, answer)] = re.findall(r"`(curl -s http://127\.0\.0\.1:8000/readyz)` answers\s+`([^`]+)`",
                                  README)
    ready = served.shell.run(line, cwd=served.elsewhere)
    assert ready.returncode == 0 and json.loads(ready.stdout) == json.loads(answer)
    page = httpx.get(f"http://127.0.0.1:{served.shell.port}/", timeout=10)
    assert page.status_code == 200
    assert all(name in page.text for name in ("/mcp", "/docs", "/readyz", "README"))


def the_first_question() -> str:
    """The search half of the question the README has the newcomer ask."""
    [asked] = re.findall(r'Then ask: \*\*"Use memspace: (.*?\?)', " ".join(README.split()))
    return asked


def inspector(*args: str) -> list[str]:
    if not INSPECTOR.exists() or shutil.which("node") is None:
        skip_or_fail(f"the MCP Inspector CLI is not installed at {INSPECTOR}: run `make inspector`")
    return ["node", str(INSPECTOR), "--cli", *args]


def test_the_claude_code_line_reaches_the_demo_with_the_demo_agent_key(served: Served) -> None:
    [line] = block_with("claude mcp add --transport http")
    words = shlex.split(line.replace("127.0.0.1:8000", f"127.0.0.1:{served.shell.port}"))
    url = words[words.index("memspace") + 1]
    header = words[words.index("--header") + 1]
    assert re.fullmatch(r"Authorization: Bearer msk_\S+", header), header
    header = re.sub(r"msk_\S+", served.keys["demo-agent"], header)
    done = subprocess.run(
        inspector(url, "--transport", "http", "--header", header,
                  "--method", "tools/call", "--tool-name", "search_memory",
                  "--tool-arg", f"query={the_first_question()}"),
        cwd=served.elsewhere, env=served.shell.env, capture_output=True, text=True, timeout=240,
        check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    # the current fact and the one it corrected
    assert "Kubernetes" in done.stdout and "Vercel" in done.stdout, done.stdout[:3000]


def test_the_stdio_line_reaches_the_demo_from_another_folder(served: Served) -> None:
    [line] = [b for b in block_with("memspace stdio") if b.startswith("claude mcp add")]
    stdio = shlex.split(line.split(" -- ", 1)[1])
    assert stdio[:2] == ["memspace", "stdio"] and "acme-rebuild" in stdio
    command = inspector("-e", f"MEMSPACE_MODELS_DIR={models_dir()}", *stdio,
                        "--method", "tools/call", "--tool-name", "search_memory",
                        "--tool-arg", f"query={the_first_question()}")
    done = subprocess.run(command, cwd=served.elsewhere, env=served.shell.env, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Kubernetes" in done.stdout and "Vercel" in done.stdout, done.stdout[:3000]


def test_the_cli_workflow_runs_as_written_from_another_folder(served: Served) -> None:
    shell, here = served.shell, served.elsewhere
    added_id = ""
    for line in block_with("memspace correct"):
        if added_id:
            line = re.sub(r"\bID\b", added_id, line)
        done = shell.run(line, cwd=here)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        if line.startswith("memspace add"):
            # the short id the answer shows, which `memspace correct` takes
            added_id = re.search(r"\[([0-9a-f]{8,32})\]", done.stdout).group(1)  # type: ignore[union-attr]
        if line.startswith("memspace search"):
            assert "staging.acme.test" in done.stdout
        if line.startswith("memspace correct"):
            assert f"Superseded (now inactive): {added_id}" in done.stdout
    assert added_id


def test_the_spaces_and_keys_block_runs_as_written(served: Served) -> None:
    shell, here = served.shell, served.elsewhere
    prefix = ""
    for line in block_with("memspace key revoke"):
        if line.startswith("memspace key revoke"):
            line = re.sub(r"msk_[0-9a-z]+", prefix, line)
        done = shell.run(line, cwd=here)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        if "--name coding-agent" in line:
            prefix = done.stdout.split("_")[0] + "_" + done.stdout.split("_")[1]
    assert prefix.startswith("msk_")


def test_a_busy_port_is_named_before_the_demo_loads_or_a_key_is_printed(
        served: Served, tmp_path: Path) -> None:
    """`make run` on a fresh data folder with the port taken: the README's Troubleshooting line
    names the message and the way out, and both hold as written."""
    [(message, remedy)] = re.findall(
        r"\*\*`(port 8000 on 127\.0\.0\.1 is already in use)`\.\*\*.*?`(MEMSPACE_PORT=8001 make run)`",
        " ".join(README.split()))
    newcomer = Shell(tmp_path / "home", served.shell.port)  # a fresh data folder, the port taken
    (newcomer.home / ".local" / "bin").mkdir(parents=True)
    (newcomer.home / ".local" / "bin" / "memspace").symlink_to(ROOT / ".venv" / "bin" / "memspace")
    taken = str(served.shell.port)
    done = newcomer.run(f"make -o install --no-print-directory -C {shlex.quote(str(ROOT))} run",
                        cwd=tmp_path)
    said = done.stdout + done.stderr
    assert message.replace("8000", taken) in said, said
    assert "MEMSPACE_PORT" in said and "--port" in said, said
    # make names its recipe's exit status: 1, never an abort (134)
    assert re.search(r"\] Error 1$", said, re.MULTILINE), said
    assert "msk_" not in said and "Loaded the demo" not in said
    assert not (newcomer.home / ".local" / "share" / "memspace" / "memspace.db").exists()
    # the way out, as written, with a port free on this machine for 8001
    other = str(free_port())
    log = tmp_path / "elsewhere.log"
    command = remedy.replace("8001", other).replace(
        "make run", f"make -o install --no-print-directory -C {shlex.quote(str(ROOT))} run")
    with log.open("w") as out:
        server = subprocess.Popen(["bash", "-c", command], cwd=tmp_path, env=newcomer.env,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_S
        while f"MCP endpoint http://127.0.0.1:{other}/mcp" not in log.read_text():
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        assert "demo-agent" in log.read_text() and "msk_" in log.read_text()
    finally:
        stop(server)
    unwritable = newcomer.run("MEMSPACE_DATA_DIR=/proc/memspace memspace serve --demo", cwd=tmp_path)
    assert unwritable.returncode == 1 and "MEMSPACE_DATA_DIR" in unwritable.stderr
    assert "msk_" not in unwritable.stdout + unwritable.stderr


def inline_commands() -> list[str]:
    """Every `memspace …` command the README's text gives in a code span, outside the blocks
    (a printed line, `memspace sqlite store, MCP endpoint …`, is no command)."""
    text = re.sub(r"```.*?```", "", README, flags=re.DOTALL)
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)]
    return [span for span in spans if span.startswith("memspace ") and "MCP endpoint" not in span]


def as_run(command: str) -> list[str]:
    """`command` with its placeholders filled (S a space, NAME a key) and each `a|b` choice
    made, one command per choice."""
    space = "walk-space" if command.startswith("memspace space create") else "acme-rebuild"
    command = re.sub(r"\bS\b", space, re.sub(r"\bNAME\b", "demo-agent", command))
    choice = re.search(r"\b(\w+(?:\|\w+)+)\b", command)
    if choice is None:
        return [command]
    return [command.replace(choice.group(1), one) for one in choice.group(1).split("|")]


def test_every_memspace_command_in_the_readme_text_is_one_the_cli_takes(served: Served) -> None:
    """Each verb and option as the README spells it: `--help` after them answers only when
    every word before it is a verb or option of the CLI."""
    commands = [one for command in inline_commands() for one in as_run(command)]
    assert len(commands) >= 10, commands
    for command in commands:
        checked = re.sub(r"\s*>\s*\S+$", "", command) + " --help"
        done = served.shell.run(checked, cwd=served.elsewhere)
        assert done.returncode == 0, (command, done.stdout[-1500:], done.stderr[-1500:])


def test_the_readme_commands_a_newcomer_runs_as_they_are_work(served: Served) -> None:
    """Those that need no file, checkout or client of their own, run as written from another
    folder on the store `make run` filled."""
    ran = []
    for command in inline_commands():
        if command.split()[1] in {"stdio", "hook", "serve", "repo", "mine-git", "import"}:
            continue
        for one in as_run(command):
            done = served.shell.run(one, cwd=served.elsewhere)
            # doctor exits 1 when it has something to fix, and says what
            ok = (0, 1) if one == "memspace doctor" else (0,)
            assert done.returncode in ok and "Traceback" not in done.stderr, (one, done.stdout, done.stderr)
            ran.append(one.split()[1])
    assert {"verify", "audit", "key", "doctor", "export", "login-link", "space"} <= set(ran), ran


def stop(server: subprocess.Popen[bytes]) -> None:
    """Ends the server's process group; one that already exited (a failed start) is only
    waited for, so the start's own failure is what the test reports."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, 15)
    server.wait(timeout=30)

