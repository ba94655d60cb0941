"""How long add_memory keeps the caller waiting, with a model: synchronous (`wait: true`) against
background (`wait: false`, the default), beside flat mode. Asserts nothing.

Usage: bench_add_latency.py [--adds N] [--local] [--timeout S]

The model comes from MEMSPACE_LLM_MODEL / _API_BASE / _API_KEY, or with `--local` from
tools/llm-local (`make llm`). Each round adds N fresh notes in a new space of a temporary SQLite
store with the real embedder, then, for the background round, waits for the worker to settle
them and reports that too. Only an idle machine gives honest figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from pydantic import SecretStr

from memspace.domain.models import Access
from memspace.domain.notes import NoteState
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings

NOTES = [
    "We moved staging from Postgres 14 to 16 last week; Alice owns the migration.",
    "Bo owns the API gateway and the gateway deploys on Mondays.",
    "The mobile app ships every two weeks and Ana leads the mobile team.",
    "Our standup moved to 9:45 and the retro is on Fridays now.",
    "The billing service runs on Python 3.12 and uses Stripe for payments.",
    "Design reviews need two approvals; Priya approves the database changes.",
]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(share * len(ordered)) - 1)]


def line(label: str, seconds: list[float]) -> str:
    return (f"{label:<34} p50 {percentile(seconds, 0.5) * 1000:9.1f} ms   "
            f"p95 {percentile(seconds, 0.95) * 1000:9.1f} ms   ({len(seconds)} adds)")


def round_of(app: Container, adds: int, wait: bool) -> tuple[list[float], str]:
    slug = f"bench-{uuid.uuid4().hex[:8]}"
    space = app.admin.create_space(slug)
    who = app.access.authenticate(app.admin.create_key("bench", {slug: Access.READWRITE}).raw)
    seconds, saved = [], []
    for n in range(adds):
        text = f"{NOTES[n % len(NOTES)]} (note {n})"
        started = time.perf_counter()
        result = app.memories.add(who, text, slug, wait=wait)
        seconds.append(time.perf_counter() - started)
        saved.append(result.memories[0].id)
    if wait or app.notes is None:
        return seconds, ""
    started = time.perf_counter()
    while True:
        jobs = app.notes.states(space.id, saved)
        if all(j.state is not NoteState.PENDING for j in jobs.values()):
            break
        time.sleep(0.1)
    states = [j.state.value for j in jobs.values()]
    return seconds, (f"worker settled all {adds} in {time.perf_counter() - started:.1f} s after the "
                     f"last add ({states.count('extracted')} extracted, {states.count('flat')} flat)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=10)
    parser.add_argument("--local", action="store_true", help="use tools/llm-local (`make llm`)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model call")
    args = parser.parse_args()

    settings = Settings()
    if args.local:
        port = os.environ.get("LLM_LOCAL_PORT", "8091")
        settings = settings.model_copy(update={
            "llm_model": "openai/local", "llm_api_base": f"http://127.0.0.1:{port}/v1",
            "llm_api_key": SecretStr("local")})
    if not settings.llm_model:
        print("bench_add_latency needs a model: --local (after `make llm`) or MEMSPACE_LLM_MODEL.")
        return 0
    embedder = LocalEmbedder()
    embedder.warm_up()  # the model load is not an add's latency
    with tempfile.TemporaryDirectory() as data:
        base = settings.model_copy(update={"data_dir": Path(data), "store": "sqlite",
                                           "llm_timeout_s": args.timeout})
        flat = build(base.model_copy(update={"llm_model": None}), embedder=embedder)
        round_of(flat, 1, wait=True)  # untimed: the new store's first write and caches
        flat_s, _ = round_of(flat, args.adds, wait=True)
        flat.close()
        app = build(base, embedder=embedder)
        sync_s, _ = round_of(app, args.adds, wait=True)
        app.worker.start()
        try:
            background_s, settled = round_of(app, args.adds, wait=False)
        finally:
            app.worker.stop(timeout_s=args.timeout)
        app.close()
    print(f"\nmodel {settings.llm_model}; add latency as the caller sees it:")
    print(line("flat (no model)", flat_s))
    print(line("with model, wait: true (sync)", sync_s))
    print(line("with model, wait: false (default)", background_s))
    print(settled)
    print(f"mean sync add {statistics.mean(sync_s):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
