"""What the code index asks of git: is a directory a checkout, its tracked files, its head,
whether a commit exists, and its log. Every call has a timeout and says what went wrong."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memspace.domain.errors import InvalidInput, Unavailable

GIT_TIMEOUT_S = 60


def _git(root: str, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except FileNotFoundError as exc:
        raise Unavailable("git is not installed on the server; install git to index repositories") from exc
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"git {args[0]} in {root} took over {GIT_TIMEOUT_S} s; retry") from exc
    if done.returncode != 0:
        raise InvalidInput(f"git {args[0]} failed in {root}: {done.stderr.strip()[:300]}")
    return done.stdout


def checkout_root(path: str) -> str:
    """The real path of the top of the git checkout at `path`, or a clear refusal."""
    where = Path(path).expanduser()
    if not where.is_dir():
        raise InvalidInput(f"'{path}' is not a directory the server can read; pass the path of "
                           "a git checkout")
    real = os.path.realpath(where)
    try:
        top = _git(real, "rev-parse", "--show-toplevel").strip()
    except InvalidInput as exc:
        raise InvalidInput(f"'{path}' is not a git repository (git rev-parse failed); pass the "
                           "top directory of a git checkout, e.g. one made by `git clone`") from exc
    if os.path.realpath(top) != real:
        raise InvalidInput(f"'{path}' is inside the git checkout '{top}'; register its top "
                           "directory instead")
    return real


def tracked_files(root: str) -> list[str]:
    out = _git(root, "ls-files", "-z", "--cached")
    return [p for p in out.split("\0") if p]


def head(root: str) -> str | None:
    try:
        return _git(root, "rev-parse", "--verify", "-q", "HEAD").strip() or None
    except InvalidInput:
        return None  # a repository without commits yet


def has_commit(root: str, sha: str) -> bool:
    try:
        _git(root, "cat-file", "-e", f"{sha}^{{commit}}")
    except InvalidInput:
        return False
    return True


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str
    date: str
    subject: str
    body: str
    parents: int


def log(root: str, since: str | None = None) -> list[Commit]:
    """Commits reachable from HEAD, oldest first."""
    args = ["log", "--reverse", "--format=%H%x1f%an%x1f%aI%x1f%P%x1f%s%x1f%b%x1e"]
    if since:
        args.append(f"--since={since}")
    if head(root) is None:
        return []
    commits = []
    for record in _git(root, *args).split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) < 6:
            continue
        sha, author, date, parents, subject, body = fields[:6]
        commits.append(Commit(sha, author, date, subject.strip(), body.strip(),
                              len(parents.split())))
    return commits
