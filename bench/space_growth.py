"""How far past its RSS the process goes while the vector cache takes one space: read from
the store in batches, an add after the read, the space saved, restored from its snapshot with
rows past it, and an add after that. Each step starts from a reset VmHWM (/proc/self/clear_refs,
Linux), so its peak is its own. Prints; asserts nothing (docs/scaling.md, Memory).

    .venv/bin/python bench/space_growth.py [--rows 34126] [--past 10]

The rows are random float32 vectors of 384 numbers with short texts, served by an in-memory
source; no store or model is involved.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memspace.runtime.heap import lean_heap, release_freed_memory
from memspace.stores import space_reads, vector_snapshot
from memspace.stores.space_vectors import Row, SpaceVectors

WIDTH = 384


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fresh_peak() -> float:
    """The RSS now, with the process's peak reset to it."""
    release_freed_memory()
    Path("/proc/self/clear_refs").write_text("5")
    return rss_mb()


class Source:
    """One space's rows in memory, as a store's VectorSource answers them."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self._rng = np.random.default_rng(1)

    def add(self, n: int) -> None:
        first = len(self.rows) + 1
        vectors = self._rng.standard_normal((n, WIDTH)).astype(np.float32)
        self.rows += [(first + i, vectors[i].tobytes(), "general", f"term{first + i} word",
                       f"text {first + i}") for i in range(n)]

    def vector_version(self, space_id: str) -> int:
        return len(self.rows)

    def vectors_after(self, space_id: str, after_seq: int,
                      limit: int | None = None) -> Sequence[Row]:
        return self.rows[after_seq:][:limit]

    def inactive_seqs(self, space_id: str, upto_seq: int) -> Sequence[int]:
        return []

    def memory_count(self, space_id: str) -> int:
        return len(self.rows)


def add_one(source: Source, entry: SpaceVectors, label: str) -> None:
    """One row more, as an add to a held space appends it; prints its peak."""
    source.add(1)
    before = fresh_peak()
    entry.append(source.vectors_after("s", entry.last_seq))
    print(f"{label}: peak {rss_mb('VmHWM') - before:.0f} MB past the RSS before it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=34_126,
                        help="the space's memories (bench_scale's largest at 200,000)")
    parser.add_argument("--past", type=int, default=10, help="rows added after the snapshot")
    args = parser.parse_args()
    lean_heap()
    source = Source()
    source.add(args.rows)
    entry = SpaceVectors()
    before = fresh_peak()
    space_reads.read_into(entry, source, "s", None)
    release_freed_memory()
    print(f"read {args.rows:,} rows: held {rss_mb() - before:.0f} MB, "
          f"peak {rss_mb('VmHWM') - rss_mb():.0f} MB past the RSS after it")
    add_one(source, entry, "an add after the read")
    with tempfile.TemporaryDirectory(prefix="memspace-growth-") as folder:
        vector_snapshot.save(Path(folder), "s", entry.saved())
        del entry
        source.add(args.past)
        before = fresh_peak()
        restored = SpaceVectors()
        past = space_reads.restore(Path(folder), restored, source, "s")
        if past is None:
            raise SystemExit("the snapshot was not used")
        restored.append(past)
    release_freed_memory()
    print(f"restored with {len(past)} rows past the snapshot: held {rss_mb() - before:.0f} MB, "
          f"peak {rss_mb('VmHWM') - rss_mb():.0f} MB past the RSS after it")
    add_one(source, restored, "an add after the restore")
    print(f"$ python bench/space_growth.py --rows {args.rows} --past {args.past}")


if __name__ == "__main__":
    main()
