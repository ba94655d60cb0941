"""Build memspace the way its users get it: a wheel from exactly the files the Dockerfile copies,
or from the working tree, without Docker and without the network."""

from __future__ import annotations

import fnmatch
import json
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


@dataclass(frozen=True)
class Copy:
    """One `COPY src... dest` instruction of the Dockerfile."""

    sources: tuple[str, ...]
    dest: str


def dockerfile_instructions(path: Path = DOCKERFILE) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    joined: list[str] = []
    pending = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not pending and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    pairs = []
    for line in filter(str.strip, joined):
        keyword, _, rest = line.strip().partition(" ")
        pairs.append((keyword.upper(), rest.strip()))
    return pairs


def dockerfile_copies(path: Path = DOCKERFILE) -> list[Copy]:
    """The build-context COPY/ADD instructions (shell or JSON form; --chown/--chmod ignored)."""
    copies = []
    for keyword, rest in dockerfile_instructions(path):
        if keyword not in ("COPY", "ADD"):
            continue
        words = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
        if any(w.startswith("--from") for w in words):
            continue  # from another stage, not from the build context
        words = [w for w in words if not w.startswith("--")]
        copies.append(Copy(tuple(words[:-1]), words[-1]))
    return copies


def _ignore_patterns() -> list[str]:
    ignore = REPO / ".dockerignore"
    if not ignore.is_file():
        return []
    lines = [line.strip() for line in ignore.read_text(encoding="utf-8").splitlines()]
    return [line.rstrip("/") for line in lines if line and not line.startswith("#")]


def _ignored(relative: PurePosixPath, patterns: list[str]) -> bool:
    """Docker's rule, as far as this repository's .dockerignore uses it: a pattern matches the
    path or one of its parents; `**/` matches any number of leading folders. (No `!` lines.)"""
    candidates = [str(p) for p in [relative, *relative.parents] if str(p) != "."]
    for pattern in patterns:
        bare = pattern.removeprefix("**/")
        for candidate in candidates:
            if fnmatch.fnmatchcase(candidate, pattern) or (
                    pattern.startswith("**/") and fnmatch.fnmatchcase(candidate.rsplit("/", 1)[-1], bare)):
                return True
    return False


def stage_docker_context(target: Path) -> Path:
    """Copy what the Dockerfile's COPY lines copy into `target` (the image's WORKDIR), as Docker
    does: symlinks stay symlinks (a link out of the copied tree dangles, as it would in the
    image) and .dockerignore applies. Returns `target`."""
    patterns = _ignore_patterns()
    for copy in dockerfile_copies():
        dest = target / copy.dest.removeprefix("/app/").lstrip("./")
        into_folder = copy.dest.endswith("/") or len(copy.sources) > 1
        for source in copy.sources:
            origin = REPO / source
            if not origin.exists():
                raise FileNotFoundError(f"Dockerfile copies {source}, which is not in the repository")
            place = dest / origin.name if into_folder else dest
            place.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir() and not origin.is_symlink():
                # Docker copies a folder's contents into dest.
                def ignore(folder: str, names: list[str], _origin: Path = origin) -> set[str]:
                    here = PurePosixPath(Path(folder).relative_to(REPO).as_posix())
                    return {n for n in names if _ignored(here / n, patterns)}

                shutil.copytree(origin, dest, symlinks=True, ignore=ignore, dirs_exist_ok=True)
            else:
                shutil.copy2(origin, place, follow_symlinks=False)
    return target


def stage_working_tree(target: Path) -> Path:
    """The files git would put in a release: tracked and not-ignored untracked ones."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        origin = REPO / name
        if not origin.exists() and not origin.is_symlink():
            continue  # deleted in the working tree, not yet committed
        place = target / name
        place.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, place, follow_symlinks=False)
    return target


def build_wheel(project: Path, out: Path) -> Path:
    """`pip wheel --no-deps` of `project` into `out`. The running interpreter's setuptools builds
    it (no build isolation), so no index is needed; the build backend is the one pyproject names."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
         "--wheel-dir", str(out), str(project)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    [wheel] = out.glob("memspace-*.whl")
    return wheel
