"""A sync killed with SIGKILL part way leaves whole files indexed (each batch of files is one
transaction with their hashes), and the next sync completes the index."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from memspace.code.chunkers import chunk_text
from tests.support.gitrepo import GitRepo

FILES = 6000


def _env(data_dir: Path) -> dict[str, str]:
    return {**os.environ, "MEMSPACE_DATA_DIR": str(data_dir), "MEMSPACE_STORE": "sqlite",
            "PYTHONPATH": str(Path(__file__).parents[2] / "src")}


def run(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memspace.cli", *args], env=_env(data_dir),
                          capture_output=True, text=True, timeout=300, check=False)


def indexed(db: Path) -> tuple[dict[str, str], dict[str, list[tuple[int, int]]]]:
    with sqlite3.connect(db) as conn:
        files = dict(conn.execute("SELECT path, sha256 FROM code_files").fetchall())
        chunks: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for path, lo, hi in conn.execute(
                "SELECT path, start_line, end_line FROM code_chunks ORDER BY path, start_line"):
            chunks[path].append((lo, hi))
    return files, chunks


def test_a_killed_sync_leaves_whole_files_and_the_next_completes(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "big")
    for n in range(FILES):
        repo.write(f"pkg{n % 20}/mod{n}.py", f"def f{n}(x):\n    return x + {n}\n\n\n"
                   f"class C{n}:\n    def m(self):\n        return {n}\n")
    repo.commit("many files")
    data = tmp_path / "data"
    made = run(data, "space", "create", "big")
    assert made.returncode == 0, made.stderr
    added = run(data, "repo", "add", "big", str(repo.root), "--space", "big", "--no-sync")
    assert added.returncode == 0, added.stderr
    db = data / "memspace.db"
    sync = subprocess.Popen([sys.executable, "-m", "memspace.cli", "repo", "sync", "big"],
                            env=_env(data), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300  # turns a hang into a failure; not a timing assert
    while not indexed(db)[0]:
        assert sync.poll() is None, "the sync ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(sync.pid, signal.SIGKILL)
    sync.wait()
    files, chunks = indexed(db)
    assert 0 < len(files) < FILES, "killed part way"
    for path in files:  # every recorded file has exactly its chunks
        expected = [(p.start_line, p.end_line) for p in chunk_text(repo.read(path), "python")]
        assert chunks[path] == expected
    assert set(chunks) <= set(files)
    again = run(data, "repo", "sync", "big", "--json")
    assert again.returncode == 0, again.stderr
    files, chunks = indexed(db)
    assert len(files) == FILES and set(chunks) == set(files)
    sample = repo.read("pkg3/mod3.py")
    expected = [(p.start_line, p.end_line) for p in chunk_text(sample, "python")]
    assert len(expected) == 3 and all(len(c) == 3 for c in chunks.values())
