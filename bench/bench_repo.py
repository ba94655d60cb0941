"""The code index and verification on this repository. Prints; asserts nothing.

Usage: bench_repo.py [--notes N] [--queries Q] [--store sqlite|neo4j]

On a fresh clone of this repository (HEAD) in a temporary folder: the cold index (time, files,
chunks), an unchanged re-sync, a sync after editing one file, `verify` of N anchored notes
(default 1,000; a tenth of the cited files edited above the cited lines first, so part of the
run re-anchors), and search `kind=code` p50/p95 over Q queries of identifiers from the code.
Targets (docs/evidence.md): cold <= 3 s, unchanged <= 0.5 s, verify of 1,000 <= 2 s, code search
p95 <= 50 ms. The store is a temporary SQLite file, or Neo4j (MEMSPACE_NEO4J_URI). No embedding
model is loaded: nothing measured here embeds. Figures are honest only on an idle machine.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memspace.domain.embedder import MINILM_CALIBRATION  # noqa: E402
from memspace.domain.evidence import overall  # noqa: E402
from memspace.domain.models import Memory  # noqa: E402
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.services.access.access import AccessService  # noqa: E402
from memspace.services.shared.clock import new_id  # noqa: E402
from memspace.startup.container import build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

OP = AccessService.operator()


class WordHashEmbedder:
    """Stands in for the model (nothing timed here embeds): a bag of hashed words."""

    dimensions = 384
    calibration = MINILM_CALIBRATION

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in text.lower().split() or ["empty"]:
                vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimensions] += 1
            norm = sum(x * x for x in vector) ** 0.5
            out.append([x / norm for x in vector])
        return out

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed(texts)


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--store", choices=["sqlite", "neo4j"], default="sqlite")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        checkout = Path(tmp) / "memspace"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(checkout)], check=True)
        extra = ({"store": "neo4j", "neo4j_uri": os.environ["MEMSPACE_NEO4J_URI"]}
                 if args.store == "neo4j" else {})
        settings = Settings(_env_file=None, data_dir=Path(tmp) / "data", **extra)  # type: ignore[arg-type]
        app = build(settings, embedder=WordHashEmbedder())
        try:
            run(app, checkout, args, rng)
        finally:
            app.close()


def run(app, checkout: Path, args: argparse.Namespace, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    space = app.admin.create_space(f"bench-{os.urandom(3).hex()}").slug
    name = f"memspace-{os.urandom(3).hex()}"
    app.repos.add(OP, name, str(checkout), space)
    cold, cold_s = timed(lambda: app.repos.sync(OP, name))
    print(f"store {args.store}; {cold.files} tracked files ({len(cold.skipped)} skipped)")
    print(f"cold index:        {cold_s:6.2f} s  {cold.indexed} files, {cold.chunks} chunks  (target <= 3 s)")
    same, same_s = timed(lambda: app.repos.sync(OP, name))
    print(f"unchanged re-sync: {same_s:6.2f} s  {same.indexed} files re-indexed  (target <= 0.5 s)")
    target = checkout / "src/memspace/domain/evidence.py"
    target.write_text(target.read_text() + "\n# edited by bench_repo\n")
    one, one_s = timed(lambda: app.repos.sync(OP, name))
    print(f"sync, one edited:  {one_s:6.2f} s  {one.indexed} file re-indexed, {one.chunks} chunks")

    # anchored notes: random non-blank lines of Python files, anchored as a write would
    python = [p for p in git(checkout, "ls-files", "*.py").split() if p.startswith("src/")]
    sid = app.access.resolve(OP, space).space.id
    target_space = app.store.directory.get_space(sid)
    notes: list[Memory] = []
    while len(notes) < args.notes:
        path = rng.choice(python)
        lines = (checkout / path).read_text().split("\n")
        line = rng.randrange(len(lines)) + 1
        if not lines[line - 1].strip():
            continue
        cited = app.evidence.check(target_space, [f"{path}:{line}"]).citations
        text = f"note {len(notes)} about {path}:{line}"
        created = app.store.directory.get_space(sid).created_at
        notes.append(Memory(new_id(), sid, text, "bench", None, True, created,
                            "bench", content_hash(text), evidence=cited,
                            verification=str(overall(cited)), verified_at=None))
    for start in range(0, len(notes), 500):
        batch = notes[start:start + 500]
        app.store.writes.write(WriteBatch(sid, [replace(m) for m in batch]))
    cited_files = sorted({m.evidence[0].path for m in notes})
    edited = rng.sample(cited_files, max(1, len(cited_files) // 10))
    for path in edited:  # lines added above every cited line: those notes re-anchor
        file = checkout / path
        file.write_text("# bench: a line above\n" + file.read_text())
    report, verify_s = timed(lambda: app.verification.verify(OP, space))
    counts = {s: report.count(s) for s in ("verified", "moved", "broken")}
    moved = sum(v.reanchored for v in report.checked)
    print(f"verify {len(report.checked)} notes: {verify_s:6.2f} s  {counts}, {moved} re-anchored "
          f"({len(edited)} of {len(cited_files)} cited files edited)  (target <= 2 s)")

    words = sorted({w for m in re.finditer(r"\b[a-z_]{5,}\b", cold_text(checkout, python))
                    for w in [m.group(0)]})
    queries = [" ".join(rng.sample(words, 2)) for _ in range(args.queries)]
    app.code.search(OP, queries[0], space)  # builds the space's index once
    times = []
    for query in queries:
        _, took = timed(lambda q=query: app.code.search(OP, q, space))
        times.append(took * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"code search:       p50 {statistics.median(times):5.1f} ms  p95 {p95:5.1f} ms  over "
          f"{len(times)} queries  (target p95 <= 50 ms)")


def cold_text(checkout: Path, paths: list[str]) -> str:
    return "\n".join((checkout / p).read_text() for p in paths[:60])


if __name__ == "__main__":
    main()
