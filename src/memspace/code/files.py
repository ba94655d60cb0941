"""Reading a file of a checkout safely: inside the checkout (no `..`, no symlink out of it),
not binary, not over the size limit. Sync skips such files with the reason; a citation of one
is refused with it."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import PurePosixPath

MAX_FILE_BYTES = 1_000_000
# Trees that hold other people's or generated code, never indexed.
VENDORED = {"node_modules", "vendor", "vendors", "third_party", "third-party", "dist", "build",
            ".venv", "venv", "__pycache__", "target", ".git", ".tox", ".mypy_cache",
            ".pytest_cache", "site-packages", "bower_components", ".next", "coverage"}
GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".lock", "_pb2.py", "_pb2_grpc.py",
                      ".pb.go", ".generated.ts", ".g.dart")
GENERATED_NAMES = {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock",
                   "Cargo.lock", "go.sum", "uv.lock"}


class Unreadable(Exception):
    """Why a file of a checkout is not read (the message is for people)."""


@dataclass(frozen=True)
class FileText:
    text: str
    sha256: str


def vendored(path: str) -> bool:
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else path
    return (any(p in VENDORED for p in parts[:-1]) or name in GENERATED_NAMES
            or name.endswith(GENERATED_SUFFIXES))


def read_text(root: str, path: str, max_bytes: int = MAX_FILE_BYTES) -> FileText:
    """The text of `path` (relative to the checkout `root`), or Unreadable with the reason."""
    parts = path.split("/")
    if path.startswith("/") or ".." in parts or "\\" in path:
        raise Unreadable(f"'{path}' points outside the repository")
    full = os.path.join(root, path)
    try:
        info = os.lstat(full)
    except OSError as exc:
        raise Unreadable(f"'{path}' is not in the checkout ({exc.strerror})") from exc
    # Containment is decided on real paths, both sides: a symlinked directory on the way
    # (`docs -> /etc`) leads out as surely as a symlinked file, and a checkout reached through
    # a symlink still holds its own files.
    top = os.path.realpath(root)
    real = os.path.realpath(full)
    inside = real != top and os.path.commonpath([top, real]) == top
    if not inside:
        through = "a symlink" if os.path.islink(full) else "under a directory symlink"
        raise Unreadable(f"'{path}' is {through} pointing out of the checkout; cite a file "
                         "inside the repository")
    if os.path.islink(full):
        raise Unreadable(f"'{path}' is a symlink; cite the file it points to")
    if not os.path.isfile(real):
        raise Unreadable(f"'{path}' is not a regular file")
    if info.st_size > max_bytes:
        raise Unreadable(f"'{path}' is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit "
                         "for indexed files")
    with open(real, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if b"\0" in data[:8192]:
        raise Unreadable(f"'{path}' is a binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"'{path}' is not UTF-8 text (binary?)") from exc
    return FileText(text, hashlib.sha256(data).hexdigest())
