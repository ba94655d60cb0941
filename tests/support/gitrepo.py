"""Real git repositories made by tests: files written, committed, renamed, history rewritten."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {**os.environ, "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.test",
       "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.test",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, env=ENV,
                              capture_output=True, text=True).stdout.strip()

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def commit(self, message: str, *paths: str) -> str:
        self.git("add", "-A", *paths)
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def line_of(self, path: str, text: str) -> int:
        """1-based number of the only line of `path` containing `text`."""
        found = [n for n, line in enumerate(self.read(path).split("\n"), 1) if text in line]
        assert len(found) == 1, (path, text, found)
        return found[0]


SERVICE_PY = '''"""Billing service."""

import math

RETRY_LIMIT = 5


def backoff(attempt):
    """Seconds to wait before retry `attempt`."""
    delay = min(30, 2 ** attempt)
    return delay


class Invoices:
    def total(self, lines):
        return sum(line.amount for line in lines)

    def tax(self, lines):
        return math.ceil(self.total(lines) * 0.2)
'''
