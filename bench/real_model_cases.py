"""How reliably the real model gets the cases of tests/integration/test_real_model.py right.

Each case runs --runs times, each time in a fresh space of one store, and prints how many runs
ended as the test asserts: a correction that supersedes the old fact (`superseded`), a note
saved without waiting that the worker replaces by its facts (`extracted`), and an add whose
fact is linked to the fact already saved (`linked`). A test asserts a case only when this
counts it right in every run (the model is pinned; its sampling is not deterministic).

    MEMSPACE_TEST_LLM_API_BASE=http://127.0.0.1:8091/v1 \
      PYTHONPATH=src .venv/bin/python bench/real_model_cases.py --runs 10 [--case NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.real_model_cases import CASES, Case, Space

from memspace.domain.models import RelationType
from memspace.domain.notes import NoteState
from memspace.embeddings.local import LocalEmbedder
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings


def superseded(app: Container, case: Case) -> str:
    space = Space(app, *case.seeded)
    old = space.seeded[case.seeded[0]]
    result = app.memories.add(space.agent, case.content, space.slug)
    current = app.store.reads.get_memory(space.id, old.id)
    ok = result.superseded == [old.id] and current is not None and not current.active
    return "ok" if ok else f"no: mode={result.mode} superseded={result.superseded} " \
        f"facts={[m.content for m in result.memories]}"


def extracted(app: Container, case: Case) -> str:
    space = Space(app, *case.seeded)
    note = app.memories.add(space.agent, case.content, space.slug, wait=False).memories[0]
    assert app.notes is not None
    deadline = time.monotonic() + 600
    while (job := app.notes.states(space.id, [note.id])[note.id]).state is NoteState.PENDING:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    after = app.store.reads.get_memory(space.id, note.id)
    facts = space.memories()
    ok = job.state is NoteState.EXTRACTED and after is not None and not after.active \
        and len(facts) >= 2
    return "ok" if ok else f"no: {job.state} {job.reason} facts={[m.content for m in facts]}"


def linked(app: Container, case: Case) -> str:
    space = Space(app, *case.seeded)
    old = space.seeded[case.seeded[0]]
    result = app.memories.add(space.agent, case.content, space.slug)
    new_ids = {m.id for m in result.memories}
    links = [r for r in result.relations if r.target_id == old.id and r.source_id in new_ids
             and r.type in (RelationType.EXTENDS, RelationType.DERIVES)]
    current = app.store.reads.get_memory(space.id, old.id)
    ok = bool(links) and current is not None and current.active and result.superseded == []
    return "ok" if ok else f"no: mode={result.mode} relations={[(r.type.value) for r in result.relations]} " \
        f"superseded={result.superseded} facts={[m.content for m in result.memories]}"


CHECKS: dict[str, Callable[[Container, Case], str]] = {
    "superseded": superseded, "extracted": extracted, "linked": linked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--case", action="append", help="only these cases (default: all)")
    args = parser.parse_args()
    base = os.environ.get("MEMSPACE_TEST_LLM_API_BASE", "http://127.0.0.1:8091/v1")
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(_env_file=None, data_dir=Path(data), llm_model="openai/local",  # type: ignore[call-arg]
                            llm_api_base=base, llm_api_key="local", llm_timeout_s=600)
        app = build(settings, embedder=LocalEmbedder())
        app.worker.start()
        try:
            for case in CASES:
                if args.case and case.name not in args.case:
                    continue
                outcomes = []
                for _ in range(args.runs):
                    outcomes.append(CHECKS[case.expect](app, case))
                    print(f"  {case.name}: {outcomes[-1]}", flush=True)
                right = sum(o == "ok" for o in outcomes)
                print(f"{case.name} ({case.expect}): {right}/{args.runs}", flush=True)
        finally:
            app.worker.stop(timeout_s=600)
            app.close()


if __name__ == "__main__":
    main()
