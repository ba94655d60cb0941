"""`memspace stdio` and `memspace hook …` run as a client runs them: a child process of this
worktree's sources on an embedded store in a test folder."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.server import APPS_CAPABILITY

SRC = Path(__file__).parents[2] / "src"


def store_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment a child needs to open the SQLite store in `data_dir`, flat mode."""
    return {"MEMSPACE_DATA_DIR": str(data_dir), "MEMSPACE_STORE": "sqlite",
            "MEMSPACE_LLM_MODEL": "", "PYTHONPATH": str(SRC), **extra}


def open_store(data_dir: Path) -> Container:
    """The same store, opened in this process (to seed it, or to serve it over HTTP)."""
    return build(Settings(_env_file=None, data_dir=data_dir, store="sqlite",  # type: ignore[call-arg]
                          llm_model=None))


def stdio_params(data_dir: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "memspace.cli", "stdio", *args],
                                 env=store_env(data_dir))


@contextlib.asynccontextmanager
async def stdio_session(data_dir: Path, *args: str, errlog: IO[str] | None = None,
                        apps: bool = False) -> AsyncIterator[Client]:
    """An MCP SDK client talking to `memspace stdio ARGS` over its stdin and stdout (the
    child's stderr into `errlog`, a file, when given); `apps`: it declares MCP Apps."""
    params = stdio_params(data_dir, *args)
    async with Client(params if errlog is None else stdio_client(params, errlog=errlog),
                      extensions=[APPS_CAPABILITY] if apps else None) as client:
        yield client


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    @property
    def context(self) -> str:
        """The additionalContext the hook printed (fails if it printed nothing)."""
        assert self.stdout.strip(), "the hook printed nothing"
        return str(json.loads(self.stdout)["hookSpecificOutput"]["additionalContext"])


# The hooks' own deadline in the tests that do not test it (3 s and 5 s by default): a process
# starting cold on a loaded 2-core machine can take longer than that to answer, and a hook that
# misses its deadline prints nothing, which would read as a wrong answer.
GENEROUS_TIMEOUT = "60"


def run_hook(args: Sequence[str], stdin: str | bytes, env: dict[str, str]) -> HookRun:
    """`memspace hook ARGS` with `stdin`; bounded (the hook bounds itself; this only keeps a
    broken one from hanging the suite). Without `--timeout` in ARGS it gets a generous one."""
    if "--timeout" not in args:
        args = [*args, "--timeout", GENEROUS_TIMEOUT]
    done = subprocess.run([sys.executable, "-m", "memspace.cli", "hook", *args],
                          input=stdin.encode() if isinstance(stdin, str) else stdin,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                               "PYTHONPATH": str(SRC), **env},
                          capture_output=True, timeout=120, check=False)
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())
