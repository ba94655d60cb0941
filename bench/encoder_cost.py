"""What the local embedding model costs on this machine: one query at a time by its length in
tokens, and a bulk embed of conversation turns (LoCoMo's, `../shared/bench/locomo10`) on one and
on the default number of workers. Prints; asserts nothing (docs/scaling.md and the encoder's
docstring read its figures).

Every search embeds its query and every add its text, one network pass each
(embeddings/onnx_encoder.py), so on a machine whose cores are busy this is the floor of a
search's CPU, whatever the store does.

Usage:
  encoder_cost.py [--model e5-small-v2] [--repeat 50] [--turns 512]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from recall_locomo import DATA, load  # noqa: E402

from memspace.startup.adapters import build_embedder  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

# Queries of growing length, in plain words (their token counts are printed beside them).
QUERIES = [
    "hello world",
    "deploy checklist",
    "which database does the billing service use",
    "what did the support team decide about refunds for annual plans last week",
    "summarise every decision the team made about the release process, the staging "
    "environment and the on-call rotation since the last planning meeting",
]


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def turns(limit: int) -> list[str]:
    """The first `limit` LoCoMo turns, as recall_locomo.py reads them."""
    return [t.content for c in load(DATA, None) for t in c.turns][:limit] if DATA.exists() else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="e5-small-v2")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--turns", type=int, default=512)
    args = parser.parse_args()
    embedder = build_embedder(Settings(_env_file=None, llm_model="",  # type: ignore[call-arg]
                                       embedding_model=args.model))
    embedder.embed(["warm up"])
    encoder = embedder._load()  # type: ignore[attr-defined]
    prefix = embedder.model.query_prefix  # type: ignore[attr-defined]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"{args.model}: one query at a time, {args.repeat} times each (wall = CPU: one thread)")
    for query in QUERIES:
        tokens = len(encoder.tokenizer.encode(prefix + query).ids)
        took, began = [], cpu_s()
        for _ in range(args.repeat):
            started = time.perf_counter()
            embedder.embed_queries([query])
            took.append((time.perf_counter() - started) * 1000)
        print(f"  {tokens:3d} tokens: p50 {statistics.median(took):6.1f} ms, CPU "
              f"{(cpu_s() - began) * 1000 / args.repeat:6.1f} ms a query")
    texts = turns(args.turns)
    if not texts:
        print(f"no LoCoMo turns under {DATA}: the bulk figure is skipped")
        return
    passage = embedder.model.passage_prefix  # type: ignore[attr-defined]
    mean = statistics.mean(len(encoder.tokenizer.encode(passage + t).ids) for t in texts)
    for workers in (1, encoder._workers):
        saved, encoder._workers = encoder._workers, workers
        started = time.perf_counter()
        embedder.embed(texts)
        seconds = time.perf_counter() - started
        encoder._workers = saved
        print(f"  {len(texts)} LoCoMo turns ({mean:.1f} tokens on average), {workers} "
              f"worker(s): {len(texts) / seconds:.0f} texts/s")


if __name__ == "__main__":
    main()
