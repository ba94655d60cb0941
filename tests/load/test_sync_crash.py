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


def cli(data_dir: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MEMSPACE_DATA_DIR": str(data_dir), "MEMSPACE_STORE": "sqlite",
           "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    return subprocess.Popen([sys.executable, "-m", "memspace.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


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
    made = cli(data, "space", "create", "big")
    assert made.wait(timeout=120) == 0, made.stderr.read() if made.stderr else ""
    added = cli(data, "repo", "add", "big", str(repo.root), "--space", "big", "--no-sync")
    assert added.wait(timeout=120) == 0
    db = data / "memspace.db"
    sync = cli(data, "repo", "sync", "big")
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
    again = cli(data, "repo", "sync", "big", "--json")
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    files, chunks = indexed(db)
    assert len(files) == FILES and set(chunks) == set(files)
    sample = repo.read("pkg3/mod3.py")
    expected = [(p.start_line, p.end_line) for p in chunk_text(sample, "python")]
    assert len(expected) == 3 and all(len(c) == 3 for c in chunks.values())
