"""Find a real language model for the tests (tests/README.md) and hand out its OpenAI-compatible base URL.

1. `MEMSPACE_TEST_LLM_API_BASE` (with `MEMSPACE_TEST_LLM_MODEL`, default `openai/local`, and
   `MEMSPACE_TEST_LLM_API_KEY`), used as-is; it must answer `GET <base>/models`.
2. tools/llm-local: a server already answering on its port (`make llm`) is used and left
   running; otherwise start.sh installs (cached in ~/.cache/memspace/llm) and starts one for the
   session, and stop.sh stops it afterwards.
3. Otherwise `LLMUnavailable`, saying what was tried.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LLM_LOCAL = Path(__file__).resolve().parents[2] / "tools" / "llm-local"
# A fresh machine downloads the runtime and ~1.1 GB of weights first: ~60 s measured on the
# 2-core dev machine; a start from the cache takes ~3-10 s.
START_TIMEOUT_S = 1800
STOP_TIMEOUT_S = 60


class LLMUnavailable(Exception):
    """No model server could be found or started."""


@dataclass(frozen=True)
class LLMEndpoint:
    model: str  # the litellm model string
    api_base: str
    api_key: str


@contextlib.contextmanager
def llm_server() -> Iterator[LLMEndpoint]:
    """Yield a model endpoint that answers; stop the local server afterwards if this started it.

    Raises:
        LLMUnavailable: neither source above gave a server that answers.
    """
    explicit = os.environ.get("MEMSPACE_TEST_LLM_API_BASE", "").strip().rstrip("/")
    if explicit:
        key = os.environ.get("MEMSPACE_TEST_LLM_API_KEY", "local")
        problem = _models_problem(explicit, key)
        if problem:
            raise LLMUnavailable(f"MEMSPACE_TEST_LLM_API_BASE={explicit} does not answer: {problem}")
        yield LLMEndpoint(os.environ.get("MEMSPACE_TEST_LLM_MODEL", "openai/local"), explicit, key)
        return

    if not shutil.which("python3"):
        raise LLMUnavailable("tools/llm-local needs `python3` (3.10+) on PATH to install the runtime")
    base = f"http://127.0.0.1:{os.environ.get('LLM_LOCAL_PORT', '8091')}/v1"
    local = LLMEndpoint("openai/local", base, "local")
    if not _models_problem(base, local.api_key):
        yield local  # someone else's server (`make llm`): theirs to stop
        return
    _run(LLM_LOCAL / "start.sh", START_TIMEOUT_S)
    try:
        yield local
    finally:
        _run(LLM_LOCAL / "stop.sh", STOP_TIMEOUT_S, error=RuntimeError)


def _models_problem(base: str, key: str) -> str | None:
    """None when `GET <base>/models` answers 200, else why not."""
    request = urllib.request.Request(f"{base}/models", headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return None if response.status == 200 else f"HTTP {response.status}"
    except urllib.error.HTTPError as exc:  # it holds the refused response open: close it
        exc.close()
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _run(script: Path, timeout_s: int, error: type[Exception] = LLMUnavailable) -> None:
    try:
        subprocess.run([str(script)], check=True, timeout=timeout_s, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        raise error(f"{script} failed: {exc.stderr.strip() or exc.stdout.strip()}") from exc
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise error(f"{script}: {exc}") from exc
