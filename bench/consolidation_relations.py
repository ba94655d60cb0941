"""Relation recall of the extraction set before and after one consolidation pass: does the pass
add the EXTENDS / DERIVES links the write missed, and what else does it change? Prints figures;
asserts nothing.

Usage: consolidation_relations.py --local [--set cases|other|both] [--limit N] [--timeout S]
                                  [--unguarded] [--out PATH]

For every case of bench/data/extraction_cases.jsonl (and, when its recorded answers exist,
extraction_cases_other_domains.jsonl) that expects at least one `extends` or `derives`:

1. a fresh space in an embedded SQLite store (a temporary folder), the app built from Settings
   by startup.container.build with the local model (`--local`: tools/llm-local, `make llm`) and
   consolidate_every="0", the real embedder (LocalEmbedder, shared by the cases);
2. the state the add left, written with the store and no model call: the case's existing
   memories, then the facts the pinned model answered at write time
   (bench/results/extraction/qwen1.5b_v2_*.jsonl) with their relations, planned by
   services/memories/reconcile.plan_extraction as the add plans them (an UPDATES supersedes its
   target when it passes the similarity floor). The recorded answers are the model's,
   unguarded; the add runs the grounding guard on them before it writes, so that runs here too
   (`--unguarded` writes them as answered). A case the guard leaves with no fact is the note
   stored flat, as the add stores it (the pass then hands it to the model);
3. one pass: container.consolidation.consolidate(slug);
4. recall per relation type, before and after: an expected (candidate k, type T) is found when
   a memory the note wrote (a fact, the flat note, or a fact the pass extracted from it) has a
   T edge with candidate k's memory, in either direction (the pass writes a link from the
   newer memory of its group, which may be the candidate). Also: the links the pass added and
   how many an expected relation names (right / made), what it queued, every memory it
   retired (an existing memory the case does not expect updated is a wrong deactivation),
   model calls, tokens and seconds of the passes.

The JSON of both sets goes to bench/results/consolidation/relations_extraction_cases.json.

    make llm && .venv/bin/python bench/consolidation_relations.py --local
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from extraction_eval import load_dump  # noqa: E402
from extraction_tally import CASES, OTHER_CASES, Case, load_cases  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from memspace.domain.consolidation import ChangeKind  # noqa: E402
from memspace.domain.extraction import Extraction  # noqa: E402
from memspace.domain.lifecycle import MemoryType, model_type  # noqa: E402
from memspace.domain.models import (  # noqa: E402
    Memory,
    MemoryFilter,
    Provenance,
    ProvenanceKind,
)
from memspace.domain.ports import WriteBatch  # noqa: E402
from memspace.domain.text import content_hash  # noqa: E402
from memspace.llm.grounding import ground  # noqa: E402
from memspace.services.memories.reconcile import plan_extraction  # noqa: E402
from memspace.services.shared import new_id  # noqa: E402
from memspace.startup.container import Container, build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

RECORDED = ROOT / "bench" / "results" / "extraction"
OUT = ROOT / "bench" / "results" / "consolidation" / "relations_extraction_cases.json"
SETS = {"cases": (CASES, RECORDED / "qwen1.5b_v2_cases.jsonl"),
        "other": (OTHER_CASES, RECORDED / "qwen1.5b_v2_other.jsonl")}
TYPES = ("extends", "derives", "updates")
LINKED = ("extends", "derives")
# When the note is written if the case gives no observed_at; the existing memories a week
# apart before it, so the pass sees them as older than every fact.
NOTE_AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
ACTOR = "bench"


def settings_for(folder: Path, timeout: float) -> Settings:
    port = os.environ.get("LLM_LOCAL_PORT", "8091")
    return Settings(_env_file=None, data_dir=folder, store="sqlite",  # type: ignore[call-arg]
                    consolidate_every="0", llm_model="openai/local",
                    llm_api_base=f"http://127.0.0.1:{port}/v1", llm_api_key=SecretStr("local"),
                    llm_timeout_s=timeout)


def existing_memories(app: Container, space_id: str, case: Case, at: datetime) -> list[Memory]:
    """The case's candidates as stored memories, oldest first. Not flat (import): in a space
    with a model they would have come out of an extraction, and the pass extracts flat ones."""
    vectors = app.embedder.embed([c.content for c in case.candidates])
    out = []
    for n, (candidate, vector) in enumerate(zip(case.candidates, vectors, strict=True)):
        created = at - timedelta(days=7 * (len(case.candidates) - n))
        out.append(Memory(
            id=new_id(), space_id=space_id, content=candidate.content,
            category=candidate.category, embedding=vector, active=True, created_at=created,
            created_by=ACTOR, content_hash=content_hash(candidate.content),
            provenance=Provenance(ProvenanceKind.IMPORT, "the case's existing memory"),
            type=model_type(candidate.category) or MemoryType.NOTE))
    return out


def write_before(app: Container, space_id: str, case: Case, got: Extraction,
                 at: datetime) -> tuple[list[Memory], list[str], int]:
    """The existing memories, then what the add would have written from the recorded answer.
    Returns the existing memories (candidate order), the note's memory ids and how many
    UPDATES the similarity floor refused."""
    existing = existing_memories(app, space_id, case, at)
    app.store.writes.write(WriteBatch(space_id, existing, at=existing[-1].created_at))
    if not got.facts:  # the add stores the content as given: a flat note, the caller's
        [vector] = app.embedder.embed([case.content])
        note = Memory(id=new_id(), space_id=space_id, content=case.content, category="note",
                      embedding=vector, active=True, created_at=at, created_by=ACTOR,
                      content_hash=content_hash(case.content), speaker=case.speaker,
                      observed_at=case.observed_at,
                      provenance=Provenance(ProvenanceKind.AGENT, f"key {ACTOR}"))
        app.store.writes.write(WriteBatch(space_id, [note], at=at))
        return existing, [note.id], 0
    by_hash = {m.content_hash: m for m in existing}
    count = iter(range(1_000))

    def fact_memory(text: str, category: str) -> Memory:
        created = at + timedelta(seconds=next(count))
        return Memory(id=new_id(), space_id=space_id, content=text, category=category,
                      embedding=None, active=True, created_at=created, created_by=ACTOR,
                      content_hash=content_hash(text), speaker=case.speaker,
                      observed_at=case.observed_at,
                      provenance=Provenance(ProvenanceKind.MODEL, "recorded extraction"))

    plan = plan_extraction(got, existing, fact_memory, app.embedder.embed, by_hash.get, ACTOR,
                           floor=app.embedder.calibration.update_floor)
    if plan.memories:
        app.store.writes.write(plan.batch(space_id, plan.memories[-1].created_at))
    return existing, [m.id for m in plan.memories], len(plan.suggested)


def edges(app: Container, space_id: str, ids: list[str]) -> set[tuple[str, str, str]]:
    out = set()
    for memory_id in ids:
        for rel in app.store.relations.relations_of(space_id, memory_id):
            out.add((rel.source_id, rel.target_id, rel.type.value.lower()))
    return out


def nearest_note(app: Container, space_id: str, existing: list[Memory], note_ids: list[str],
                 case: Case) -> dict[str, float]:
    """For each expected candidate, the cosine of the note's memory closest to it: a pass
    groups a memory only with older ones at or above the UPDATES floor, so below it the pass
    never asks about the pair."""
    notes = app.store.reads.get_memories(space_id, note_ids)
    vectors = app.embedder.embed([m.content for m in notes]) if notes else []
    out = {}
    for k in sorted({k for k, _ in case.expected}):
        target = existing[k].embedding
        assert target is not None
        out[str(k)] = round(max((sum(a * b for a, b in zip(v, target, strict=True))
                                 for v in vectors), default=0.0), 3)
    return out


def found(case: Case, existing: list[Memory], note: set[str],
          links: set[tuple[str, str, str]]) -> set[tuple[int, str]]:
    """The expected (candidate, type) pairs some note memory holds an edge of, either way."""
    number = {m.id: n for n, m in enumerate(existing)}
    held = set()
    for source, target, kind in links:
        for mine, other in ((source, target), (target, source)):
            if mine in note and other in number:
                held.add((number[other], kind))
    return {pair for pair in case.expected if pair in held}


def run_case(app: Container, case: Case, got: Extraction) -> dict[str, Any]:
    slug = f"rel-{case.id}"[:60].lower()
    space = app.admin.create_space(slug)
    at = case.observed_at or NOTE_AT
    existing, note_ids, refused = write_before(app, space.id, case, got, at)
    number = {m.id: n for n, m in enumerate(existing)}
    before = found(case, existing, set(note_ids), edges(app, space.id, note_ids))
    closeness = nearest_note(app, space.id, existing, note_ids, case)
    started = time.perf_counter()
    report = app.consolidation.consolidate(slug)  # type: ignore[attr-defined]
    wall = time.perf_counter() - started
    listed = app.store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 1_000)
    text = {m.id: m.content for m in listed}
    note = {m.id for m in listed if m.id not in number}  # the facts, and any the pass extracted
    after = found(case, existing, note, edges(app, space.id, list(note)))
    links, retired, queued = [], [], 0
    for change in report.changes:
        if change.kind is ChangeKind.QUEUED:
            queued += 1
        if change.kind is ChangeKind.LINK and change.relation is not None:
            rel = change.relation
            kind = rel.type.value.lower()
            right = any((number.get(a), kind) in case.expected and b in note
                        for a, b in ((rel.source_id, rel.target_id),
                                     (rel.target_id, rel.source_id)))
            links.append({"from": text.get(rel.source_id, rel.source_id),
                          "to": text.get(rel.target_id, rel.target_id), "type": kind,
                          "right": right})
        for memory_id in change.retired:
            k = number.get(memory_id)
            retired.append({
                "kind": change.kind.value, "memory": text.get(memory_id, memory_id),
                "existing": k, "kept": text.get(change.kept or "", change.kept),
                "wrong": k is not None and (k, "updates") not in case.expected,
                "why": change.why})
    cost = report.cost
    return {
        "id": case.id, "kind": case.kind, "expected": sorted(map(list, case.expected)),
        "facts": [f.text for f in got.facts] or [f"(flat) {case.content}"],
        "recorded": sorted({(r.candidate, r.type.value.lower())
                            for f in got.facts for r in f.relations}),
        "floor_refused_updates": refused, "similarity": closeness,
        "before": sorted(map(list, before)), "after": sorted(map(list, after)),
        "links": links, "retired": retired, "queued": queued,
        "changes": dict(Counter(c.kind.value for c in report.changes)),
        "whys": [f"{c.kind.value}: {c.why}" for c in report.changes],
        "note_after": [f"[{m.status.value}] {m.content}" for m in listed if m.id in note],
        "calls": cost.model_calls, "prompt_tokens": cost.prompt_tokens,
        "completion_tokens": cost.completion_tokens, "memories_read": cost.memories_read,
        "groups": cost.groups, "seconds": round(cost.seconds, 2), "wall": round(wall, 2)}


def summary(rows: list[dict[str, Any]], floor: float) -> dict[str, Any]:
    out: dict[str, Any] = {"cases": len(rows), "update_floor": floor}
    for kind in TYPES:
        expected = sum(1 for r in rows for _, t in r["expected"] if t == kind)
        out[kind] = {"expected": expected,
                     "within_floor": sum(1 for r in rows for k, t in r["expected"]
                                         if t == kind and r["similarity"][str(k)] >= floor),
                     "before": sum(1 for r in rows for _, t in r["before"] if t == kind),
                     "after": sum(1 for r in rows for _, t in r["after"] if t == kind)}
    links = [link for r in rows for link in r["links"]]
    out["links_made"] = len(links)
    out["links_right"] = sum(1 for link in links if link["right"])
    out["links_by_type"] = dict(Counter(link["type"] for link in links))
    retired = [x for r in rows for x in r["retired"]]
    out["retired"] = len(retired)
    out["retired_existing"] = sum(1 for x in retired if x["existing"] is not None)
    out["wrong_deactivations"] = sum(1 for x in retired if x["wrong"])
    out["queued"] = sum(r["queued"] for r in rows)
    for key in ("calls", "prompt_tokens", "completion_tokens", "seconds", "floor_refused_updates"):
        out[key] = round(sum(r[key] for r in rows), 2)
    return out


def pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.1f}%)" if d else "0/0"


def print_set(name: str, rows: list[dict[str, Any]], s: dict[str, Any]) -> None:
    print(f"\n== {name}: {s['cases']} cases expecting an extends or derives")
    print(f"{'relation':10} {'expected':>9} {'before (recorded)':>20} {'after one pass':>20} "
          f"{'within the floor':>17}")
    for kind in TYPES:
        t = s[kind]
        print(f"{kind.upper():10} {t['expected']:>9} {pct(t['before'], t['expected']):>20} "
              f"{pct(t['after'], t['expected']):>20} {t['within_floor']:>17}")
    print(f"(within the floor: expected pairs whose closest note memory is at cosine >= "
          f"{s['update_floor']} of the candidate, the only pairs a pass groups)")
    print(f"links the pass added: {s['links_made']} made, {s['links_right']} right "
          f"{s['links_by_type']}; queued {s['queued']}; UPDATES the floor refused at write: "
          f"{s['floor_refused_updates']}")
    print(f"retired by the pass: {s['retired']} ({s['retired_existing']} existing memories, "
          f"{s['wrong_deactivations']} wrong deactivations)")
    print(f"passes: {s['calls']:.0f} model calls, {s['prompt_tokens']:.0f} + "
          f"{s['completion_tokens']:.0f} tokens, {s['seconds']:.1f} s")
    for r in rows:
        print(f"  {r['id']}: expected {r['expected']}, before {r['before']}, after {r['after']}, "
              f"closest cosine {r['similarity']}, {r['calls']} calls, {r['seconds']} s, "
              f"{r['changes'] or 'no change'}")
        for why in r["whys"]:
            print(f"      {why}")
        if r["note_after"] != [f"[current] {f}" for f in r["facts"]]:
            print(f"      the note's memories after: {r['note_after']}")
        for link in r["links"]:
            print(f"      link {'right' if link['right'] else 'other'} {link['type'].upper()}: "
                  f"{link['from']!r} -> {link['to']!r}")
        for x in r["retired"]:
            who = f"existing {x['existing']}" if x["existing"] is not None else "note's"
            print(f"      retired ({x['kind']}{', WRONG' if x['wrong'] else ''}) {who} "
                  f"{x['memory']!r}, kept {x['kept']!r}: {x['why']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true",
                        help="use tools/llm-local (`make llm`) at 127.0.0.1:$LLM_LOCAL_PORT (8091)")
    parser.add_argument("--set", choices=("cases", "other", "both"), default="both")
    parser.add_argument("--limit", type=int, default=None, help="the first N selected cases")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model call")
    parser.add_argument("--unguarded", action="store_true",
                        help="write the recorded facts as answered, without the grounding guard")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    command = "python " + shlex.join(["bench/consolidation_relations.py", *sys.argv[1:]])
    if not args.local:
        print("consolidation_relations needs the local model (`make llm`, then --local); "
              "nothing was run.")
        return 0
    from memspace.embeddings.local import LocalEmbedder
    embedder = LocalEmbedder()
    results: dict[str, Any] = {"command": command, "model": "qwen2.5-coder-1.5b (llm-local)",
                               "guard": not args.unguarded, "sets": {}}
    for name in (("cases", "other") if args.set == "both" else (args.set,)):
        cases_path, recorded_path = SETS[name]
        if not recorded_path.is_file():
            print(f"\n== {name}: no recorded answers at {recorded_path.relative_to(ROOT)}; skipped")
            results["sets"][name] = {"skipped": f"no {recorded_path.name}"}
            continue
        recorded = load_dump(recorded_path)
        chosen = [c for c in load_cases(cases_path) if any(t in LINKED for _, t in c.expected)]
        chosen = chosen[:args.limit]
        rows = []
        with tempfile.TemporaryDirectory() as folder:
            app = build(settings_for(Path(folder), args.timeout), embedder=embedder)
            try:
                for case in chosen:
                    answered, _ = recorded[case.id]
                    got = answered if args.unguarded else ground(
                        answered, case.content, case.candidates, case.speaker, case.observed_at)
                    rows.append(run_case(app, case, got))
                    r = rows[-1]
                    print(f"  {case.id}: before {r['before']}, after {r['after']}, "
                          f"{r['calls']} calls, {r['seconds']} s", flush=True)
            finally:
                app.close()
        s = summary(rows, embedder.calibration.update_floor)
        print_set(f"{name} ({cases_path.relative_to(ROOT)})", rows, s)
        results["sets"][name] = {"data": str(cases_path.relative_to(ROOT)),
                                 "recorded": str(recorded_path.relative_to(ROOT)),
                                 "summary": s, "cases": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"\ncommand: {command}\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
