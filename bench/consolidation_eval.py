"""The consolidation pass (services/consolidation/) on a labelled stream of adds: what it folds,
retires, links and queues, and what it must never do (leave a fact with no current memory).
Prints figures; asserts nothing.

Usage: consolidation_eval.py [--store sqlite|neo4j|both] [--mode flat|model|both]
                             [--split tune|test|both] [--every N] [--local] [--limit N]
                             [--neo4j-uri bolt://...] [--timeout S] [--until-quiet]

Data: bench/data/consolidation_{tune,test}.jsonl (a software team's project; a physiotherapy
clinic's operations). One line is one add, in stream order: `fact`, `version`, `agent`
(coder|researcher|support: one API key each), `text`, `kind` (first, restatement, replacement:
a plain add stating the fact's new value as version 2, contradiction, lookalike: its own fact
shaped like `of`, extends, derives: `of` lists the facts it concludes from), `of`, `type`.
Only the tune part may be looked at while changing the pass; the test part is what is reported.

For each store, mode and split: the app's services are built from Settings (startup.container.build)
over a temporary SQLite file, or a new space of the Neo4j at --neo4j-uri (it keeps many spaces,
so each run's space is new); one space, three keys; every line added through MemoryService as
its agent (with a model, `wait=True`, so each add's facts are written before the next). An add
answered `conflict` (a decision/constraint/architecture beside a close one of its type: nothing
stored) is sent again with `force` (both kept), as an agent told "conflict" that keeps its
claim would: the pass, not the add, is measured on it. Each memory an add reports is mapped to
the line's fact and version (a memory first reported by another fact stays that fact's, and the
add is counted as absorbed). Then the pass runs once after the stream (`--every N`: after
every N adds as well, as the background schedule would), and the store is read back.

Figures (with no pass first: the baseline, what memspace does today; then after the pass):
- active memories per fact: current memories mapped to a fact / facts (1.00 is one each);
- facts with more than one current memory;
- stale facts: a replaced fact (version 2) whose version-1 memory is still current, of how many;
- wrong deactivations: a fact whose latest version was stored but has no current memory left
  (must be 0), and latest versions never stored (absorbed at the add);
- retirements right / made / expected, for folds (same fact and version) and supersessions (an
  older version by a newer): right when the kept memory is of the same fact and not older;
  expected counts memories that should leave the current set and that no add had retired;
- identical after normalising case, spacing and punctuation, same type: folded / pairs;
- links: made, right (EXTENDS from an `extends` fact to its `of`, DERIVES from a `derives`
  fact to one of its `of`), and the expected links present in the store, before and after;
  each link a pass made is printed with its two sides' facts, labels and texts, and those
  carried from a folded memory (an add's edge moved to the memory kept) are counted apart;
- queue: open conflicts of kinds restatement/replacement, split by what their memories are
  (one fact, a labelled contradiction, a look-alike pair, other), other kinds' counts, and how
  many facts left with several current memories have every one of them in such an entry;
- model calls and tokens per pass, pass seconds, and seconds per 1,000 memories changed.

The JSON goes to bench/results/consolidation/<store>_<mode>_<split>.json (suffixed _every<N>
or _first<N> for those runs).

    .venv/bin/python bench/consolidation_eval.py --store sqlite --mode flat --split tune
    make llm && .venv/bin/python bench/consolidation_eval.py --mode model --local --split tune
    make neo4j && .venv/bin/python bench/consolidation_eval.py --store neo4j --mode flat
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pickle
import re
import shutil
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pydantic import SecretStr  # noqa: E402

from memspace.domain.models import Access, Memory, MemoryFilter  # noqa: E402
from memspace.services.access import AccessService  # noqa: E402
from memspace.services.memories.add_types import AddRequest  # noqa: E402
from memspace.startup.container import Container, build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results" / "consolidation"
AGENTS = ("coder", "researcher", "support")
QUEUE_KINDS = ("restatement", "replacement")
CLAIM_TYPES = ("decision", "constraint", "architecture")
_PUNCT = re.compile(r"[^\w\s]")


@dataclass(frozen=True)
class Line:
    n: int
    fact: str
    version: int
    agent: str
    text: str
    kind: str
    of: tuple[str, ...]
    type: str | None


def load(split: str, limit: int | None) -> list[Line]:
    out = []
    for n, raw in enumerate((DATA / f"consolidation_{split}.jsonl").read_text().splitlines()):
        if raw.strip():
            d = json.loads(raw)
            out.append(Line(n, d["fact"], int(d["version"]), d["agent"], d["text"], d["kind"],
                            tuple(o for o in d.get("of", "").split(",") if o), d.get("type")))
    return out[:limit]


def flat_form(text: str) -> str:
    """Case, spacing and punctuation gone: what the pass may fold with no model."""
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


@dataclass
class Stream:
    """What the adds did, and which memory belongs to which fact."""

    space_id: str
    slug: str
    owner: dict[str, tuple[str, int]] = field(default_factory=dict)  # memory -> (fact, version)
    text_of: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # memory -> line text, type
    statuses: Counter[str] = field(default_factory=Counter)
    forced: int = 0
    absorbed: list[tuple[str, str]] = field(default_factory=list)  # (line's fact, owner's fact)
    add_calls: int = 0
    add_prompt: int = 0
    add_completion: int = 0
    add_seconds: float = 0.0
    reports: list[Any] = field(default_factory=list)  # PassReports, in order


def new_space(app: Container, tag: str) -> tuple[str, str, dict[str, Any]]:
    slug = f"consolidation-{tag}-{uuid.uuid4().hex[:8]}"
    space = app.admin.create_space(slug)
    keys = {a: app.access.authenticate(app.admin.create_key(f"{a}-{slug}"[:60],
                                                            {slug: Access.READWRITE}).raw)
            for a in AGENTS}
    return space.id, slug, keys


def run_pass(app: Container, stream: Stream) -> None:
    report = app.consolidation.consolidate(stream.slug)  # type: ignore[attr-defined]
    stream.reports.append(report)
    print(f"  pass {len(stream.reports)}: {len(report.changes)} changes "
          f"({dict(Counter(c.kind.value for c in report.changes))}), read "
          f"{report.cost.memories_read}, {report.cost.model_calls} model calls, "
          f"{report.cost.seconds:.1f} s{' (busy)' if report.busy else ''}", flush=True)


def add_all(app: Container, lines: Sequence[Line], tag: str, every: int,
            passes: bool) -> Stream:
    space_id, slug, keys = new_space(app, tag)
    stream = Stream(space_id, slug)
    started = time.perf_counter()
    for count, line in enumerate(lines, 1):
        request = AddRequest(line.text, slug, memory_type=line.type)
        result = app.memories.submit(keys[line.agent], request, wait=True)
        if result.status == "conflict":
            stream.forced += 1
            result = app.memories.submit(keys[line.agent],
                                         AddRequest(line.text, slug, memory_type=line.type,
                                                    force=True), wait=True)
        stream.statuses[result.status] += 1
        stream.add_calls += result.usage.llm_calls
        stream.add_prompt += result.usage.prompt_tokens
        stream.add_completion += result.usage.completion_tokens
        for memory in result.memories:
            known = stream.owner.get(memory.id)
            if known is None:
                stream.owner[memory.id] = (line.fact, line.version)
                stream.text_of[memory.id] = (line.text, line.type)
            elif known[0] != line.fact:
                stream.absorbed.append((line.fact, known[0]))
        if count % 25 == 0:
            print(f"  {count} adds, {time.perf_counter() - started:.0f} s", flush=True)
        if passes and every and count % every == 0:
            stream.add_seconds += time.perf_counter() - started
            run_pass(app, stream)
            started = time.perf_counter()
    stream.add_seconds += time.perf_counter() - started
    return stream


def read_back(app: Container, stream: Stream) -> dict[str, Memory]:
    """Every memory of the space as stored now. One the adds never reported (a pass's
    extraction writes new facts) takes the fact of the mapped memory it DERIVES from."""
    listed = app.store.reads.list_memories(
        MemoryFilter(stream.space_id, include_inactive=True), 100_000)
    known = {m.id: m for m in listed}
    known.update((m.id, m) for m in app.store.reads.get_memories(stream.space_id,
                                                                  list(stream.owner)))
    for memory in known.values():
        if memory.id in stream.owner:
            continue
        for rel in app.store.relations.relations_of(stream.space_id, memory.id):
            if rel.source_id == memory.id and rel.target_id in stream.owner:
                stream.owner[memory.id] = stream.owner[rel.target_id]
                stream.text_of[memory.id] = (memory.content, memory.type.value)
                break
    return known


def score(app: Container, lines: Sequence[Line], stream: Stream,
          reports: Sequence[Any]) -> dict[str, Any]:
    memories = read_back(app, stream)
    facts = {line.fact for line in lines}
    latest = {f: max(x.version for x in lines if x.fact == f) for f in facts}
    kind_of = {line.fact: line.kind for line in lines if line.version == 1 and
               line.kind != "restatement"}
    of = {line.fact: line.of for line in lines if line.version == 1 and line.kind != "restatement"}
    owned: dict[str, list[Memory]] = defaultdict(list)
    for mid, (fact, _) in stream.owner.items():
        if mid in memories:
            owned[fact].append(memories[mid])
    version = {mid: v for mid, (_, v) in stream.owner.items()}
    fact_of = {mid: f for mid, (f, _) in stream.owner.items()}
    current = {f: [m for m in owned[f] if m.active] for f in facts}
    unmapped = sum(1 for m in memories.values() if m.active and m.id not in stream.owner)

    replaced = [f for f in facts if latest[f] > 1]
    stale = [f for f in replaced if any(version[m.id] < latest[f] for m in current[f])]
    stored_latest = [f for f in facts if any(version[m.id] == latest[f] for m in owned[f])]
    wrong = sorted(f for f in stored_latest
                   if not any(version[m.id] == latest[f] for m in current[f]))

    # Retirements the passes made, and which were right.
    retired_by_pass: dict[str, tuple[str, str | None]] = {}
    for report in reports:
        for change in report.changes:
            if change.kind.value in QUEUE_KINDS or change.kind.value == "expiry":
                for old in change.retired:
                    retired_by_pass[old] = (change.kind.value, change.kept)
    made: Counter[str] = Counter()
    right: Counter[str] = Counter()
    wrong_retirements = []
    for old, (kind, kept) in retired_by_pass.items():
        made[kind] += 1
        ok = (kept is not None and old in fact_of and kept in fact_of
              and fact_of[old] == fact_of[kept] and version[kept] >= version[old])
        right[kind] += ok
        if not ok:
            wrong_retirements.append({"kind": kind, "retired": memories[old].content
                                      if old in memories else old,
                                      "kept": memories[kept].content if kept in memories else kept})
    # Expected: per fact, every memory of an older version, and all but one of the latest,
    # less what something other than a pass retired.
    expected_folds = expected_replacements = 0
    for f in facts:
        pool = [m for m in owned[f] if m.active or m.id in retired_by_pass]
        expected_replacements += sum(1 for m in pool if version[m.id] < latest[f])
        expected_folds += max(0, sum(1 for m in pool if version[m.id] == latest[f]) - 1)
    # Same words (case, spacing, punctuation aside) and type, same fact and version.
    groups: dict[tuple[str, int, str, str | None], list[Memory]] = defaultdict(list)
    for mid, (f, v) in stream.owner.items():
        if mid in memories and mid in stream.text_of:
            text, kind = stream.text_of[mid]
            groups[(f, v, flat_form(text), kind)].append(memories[mid])
    # A decision, constraint or architecture is never retired without a person: its
    # identical copies are expected in the queue, not folded.
    identical = [g for k, g in groups.items() if len(g) > 1 and k[3] not in CLAIM_TYPES]
    identical_folded = sum(1 for g in identical if sum(m.active for m in g) == 1)
    claims_identical = [g for k, g in groups.items() if len(g) > 1 and k[3] in CLAIM_TYPES]
    claims_retired = sum(1 for old in retired_by_pass if old in memories
                         and memories[old].type.value in CLAIM_TYPES)

    # Links.
    expected_links = {(f, o, "EXTENDS") for f in facts if kind_of.get(f) == "extends"
                      for o in of[f]}
    expected_links |= {(f, o, "DERIVES") for f in facts if kind_of.get(f) == "derives"
                       for o in of[f]}
    edges = app.store.relations.relations_among(stream.space_id, list(memories))
    present = {(fact_of[r.source_id], fact_of[r.target_id], r.type.value) for r in edges
               if r.source_id in fact_of and r.target_id in fact_of
               and memories[r.source_id].active and memories[r.target_id].active}
    links_made = links_right = carried_made = carried_right = 0
    link_list = []
    for report in reports:
        for change in report.changes:
            if change.kind.value == "link" and change.relation is not None:
                rel = change.relation
                links_made += 1
                pair = (fact_of.get(rel.source_id), fact_of.get(rel.target_id), rel.type.value)
                links_right += pair in expected_links
                # A folded memory's edge moved to the memory kept (the add related it, not
                # the pass's own look).
                carried = rel.reason.startswith("carried over")
                carried_made += carried
                carried_right += carried and pair in expected_links
                link_list.append({
                    "type": rel.type.value, "right": pair in expected_links, "carried": carried,
                    "from": [pair[0], kind_of.get(pair[0] or ""), _text(memories, rel.source_id)],
                    "to": [pair[1], kind_of.get(pair[1] or ""), _text(memories, rel.target_id)]})

    # The queue.
    open_items = app.conflicts.open_of(stream.space_id)
    queue_split: Counter[str] = Counter()
    other_kinds: Counter[str] = Counter()
    queued_with: dict[str, set[str]] = defaultdict(set)
    for item in open_items:
        if item.kind.value not in QUEUE_KINDS:
            other_kinds[item.kind.value] += 1
            continue
        sides = [fact_of.get(m.id) for m in item.memories]
        queue_split[pair_class(sides, kind_of, of)] += 1
        for m in item.memories:
            queued_with[m.id] |= {x.id for x in item.memories if x.id != m.id}
    crowded = [f for f in facts if len(current[f]) > 1]
    crowded_queued = [f for f in crowded
                      if all(queued_with[m.id] & {x.id for x in current[f]} for m in current[f])]
    stale_queued = [f for f in stale if f in crowded_queued]

    calls = sum(r.cost.model_calls for r in reports)
    prompt = sum(r.cost.prompt_tokens for r in reports)
    completion = sum(r.cost.completion_tokens for r in reports)
    seconds = sum(r.cost.seconds for r in reports)
    changed = sum(made.values()) + links_made
    n = len(facts)
    return {
        "facts": n, "lines": len(lines),
        "active_memories": sum(len(c) for c in current.values()),
        "active_per_fact": round(sum(len(c) for c in current.values()) / n, 3),
        "unmapped_active": unmapped,
        "facts_with_several_current": len(crowded),
        "replaced_facts": len(replaced), "stale_facts": sorted(stale),
        "latest_never_stored": sorted(facts - set(stored_latest)),
        "wrong_deactivations": wrong,
        "retirements": {k: {"right": right[k], "made": made[k]} for k in made},
        "retirements_wrong": wrong_retirements,
        "expected": {"folds": expected_folds, "replacements": expected_replacements},
        "identical_pairs": {"groups": len(identical), "folded_to_one": identical_folded,
                            "claim_groups": len(claims_identical)},
        "claim_typed_retired": claims_retired,
        "links": {"made": made_links(links_made, links_right),
                  "carried": made_links(carried_made, carried_right),
                  "expected": len(expected_links),
                  "expected_present": len(expected_links & present), "list": link_list},
        "queue": {"restatement_replacement": sum(queue_split.values()),
                  "by_sides": dict(queue_split), "other_kinds": dict(other_kinds),
                  "facts_several_current_all_queued": len(crowded_queued),
                  "stale_facts_queued": len(stale_queued)},
        "passes": len(reports),
        "pass_cost": {"model_calls": calls, "prompt_tokens": prompt,
                      "completion_tokens": completion, "seconds": round(seconds, 3),
                      "memories_read": sum(r.cost.memories_read for r in reports),
                      "groups": sum(r.cost.groups for r in reports),
                      "per_pass_calls": round(calls / len(reports), 1) if reports else 0,
                      "per_pass_tokens": round((prompt + completion) / len(reports))
                      if reports else 0,
                      "seconds_per_1000_changed": round(1000 * seconds / changed, 2)
                      if changed else None,
                      "seconds_per_1000_read": round(
                          1000 * seconds / sum(r.cost.memories_read for r in reports), 2)
                      if reports and sum(r.cost.memories_read for r in reports) else None},
    }


def _text(memories: dict[str, Memory], memory_id: str) -> str | None:
    memory = memories.get(memory_id)
    return memory.content if memory is not None else None


def made_links(made: int, right: int) -> dict[str, int]:
    return {"made": made, "right": right}


def pair_class(sides: Sequence[str | None], kind_of: dict[str, str],
               of: dict[str, tuple[str, ...]]) -> str:
    """What a queue entry's memories are, by their labels."""
    named = {s for s in sides if s is not None}
    if len(named) == 1 and None not in sides:
        return "one fact"
    for a in named:
        for b in named - {a}:
            if b in of.get(a, ()):
                label = kind_of.get(a)
                if label in ("contradiction", "lookalike"):
                    return label
                return f"{label} and its source"
    return "other"


def settings_for(store: str, mode: str, folder: Path, args: argparse.Namespace) -> Settings:
    settings = Settings(_env_file=None, data_dir=folder, store=store,  # type: ignore[call-arg]
                        neo4j_uri=args.neo4j_uri if store == "neo4j" else None)
    if mode == "flat":
        return settings.model_copy(update={"llm_model": None})
    if args.local:
        port = os.environ.get("LLM_LOCAL_PORT", "8091")
        return settings.model_copy(update={
            "llm_model": "openai/local", "llm_api_base": f"http://127.0.0.1:{port}/v1",
            "llm_api_key": SecretStr("local"), "llm_timeout_s": args.timeout})
    return settings.model_copy(update={"llm_timeout_s": args.timeout})


def figures(s: dict[str, Any]) -> list[tuple[str, str]]:
    """The printed rows of one scoring."""
    ret = s["retirements"]
    folds = ret.get("restatement", {"right": 0, "made": 0})
    reps = ret.get("replacement", {"right": 0, "made": 0})
    q, cost = s["queue"], s["pass_cost"]
    return [
        ("current memories per fact", f"{s['active_per_fact']:.2f}"),
        ("facts with several current memories", f"{s['facts_with_several_current']}"),
        ("stale facts still current / replaced", f"{len(s['stale_facts'])} / {s['replaced_facts']}"),
        ("wrong deactivations (must be 0)", f"{len(s['wrong_deactivations'])}"),
        ("latest version never stored", f"{len(s['latest_never_stored'])}"),
        ("folds right / made / expected",
         f"{folds['right']} / {folds['made']} / {s['expected']['folds']}"),
        ("supersessions right / made / expected",
         f"{reps['right']} / {reps['made']} / {s['expected']['replacements']}"),
        ("identical text, plain type: one left / groups",
         f"{s['identical_pairs']['folded_to_one']} / {s['identical_pairs']['groups']}"),
        ("decision/constraint/architecture retired by a pass", f"{s['claim_typed_retired']}"),
        ("links right / made", f"{s['links']['made']['right']} / {s['links']['made']['made']}"),
        ("  of them carried from a folded memory",
         f"{s['links']['carried']['right']} / {s['links']['carried']['made']}"),
        ("expected links present / expected",
         f"{s['links']['expected_present']} / {s['links']['expected']}"),
        ("queued (restatement, replacement)", f"{q['restatement_replacement']}"),
        ("facts with several current, all queued",
         f"{q['facts_several_current_all_queued']} / {s['facts_with_several_current']}"),
        ("stale facts queued", f"{q['stale_facts_queued']} / {len(s['stale_facts'])}"),
        ("model calls / tokens, all passes",
         f"{cost['model_calls']} / {cost['prompt_tokens'] + cost['completion_tokens']}"),
        ("pass seconds (per 1,000 changed; per 1,000 read)",
         f"{cost['seconds']:.1f} ({cost['seconds_per_1000_changed']}; "
         f"{cost['seconds_per_1000_read']})"),
    ]


def table(baseline: dict[str, Any], after: dict[str, Any] | None) -> None:
    print(f"  {'':52} {'no pass':>12} {'pass' if after else '':>20}")
    rows = figures(baseline)
    other = figures(after) if after else [("", "")] * len(rows)
    for (label, before), (_, then) in zip(rows, other, strict=True):
        print(f"  {label:52} {before:>12} {then:>20}")


def moved(cache: Path, stream: Stream, app: Container, folder: Path, args: argparse.Namespace,
          mode: str, embedder: Any) -> Stream:
    """The kept SQLite space exported and imported into `app`'s store under new memory ids
    (ids are 32 hex characters: each is replaced wherever it appears), the stream's map with
    them."""
    source_dir = folder / "kept"
    source_dir.mkdir()
    shutil.copy(cache / "memspace.db", source_dir / "memspace.db")
    source = build(settings_for("sqlite", mode, source_dir, args), embedder=embedder)
    try:
        operator = AccessService.operator()
        lines = [json.dumps(r) for r in source.portability.export(operator, stream.slug)]
    finally:
        source.close()
    ids = {i: uuid.uuid4().hex for i in re.findall(r'"id": "([0-9a-f]{32})"', "\n".join(lines))}
    pattern = re.compile("|".join(ids)) if ids else None
    if pattern is not None:
        lines = [pattern.sub(lambda m: ids[m.group(0)], line) for line in lines]
    slug = f"{stream.slug}-moved-{uuid.uuid4().hex[:6]}"
    app.portability.import_space(AccessService.operator(), slug, lines, create=True)
    space = app.store.directory.get_space_by_slug(slug)
    assert space is not None
    new = Stream(space.id, slug, {ids.get(k, k): v for k, v in stream.owner.items()},
                 {ids.get(k, k): v for k, v in stream.text_of.items()}, stream.statuses,
                 stream.forced, stream.absorbed, stream.add_calls, stream.add_prompt,
                 stream.add_completion, stream.add_seconds)
    return new


def run_one(store: str, mode: str, split: str, args: argparse.Namespace, embedder: Any) -> None:
    lines = load(split, args.limit)
    print(f"\n== {store} / {mode} / {split}: {len(lines)} adds, "
          f"{len({x.fact for x in lines})} facts", flush=True)
    # --adds-cache: the adds of a stream with a model take most of a run (~10 s a call here);
    # kept once (the SQLite file and what the adds answered), later runs judge the same store.
    # On Neo4j the kept SQLite adds are moved over (export, import under new ids), so both
    # stores judge the same memories for one stream of model calls.
    cache = (Path(args.adds_cache) / f"{mode}_{split}_{args.limit or 'all'}"
             if args.adds_cache and not args.every else None)
    with tempfile.TemporaryDirectory() as folder:
        reused = cache is not None and (cache / "stream.pickle").is_file()
        if reused and store == "sqlite":
            assert cache is not None
            shutil.copy(cache / "memspace.db", Path(folder) / "memspace.db")
        app = build(settings_for(store, mode, Path(folder), args), embedder=embedder)
        try:
            has_pass = hasattr(app, "consolidation") and not args.no_pass
            if not has_pass:
                print("  no pass run (--no-pass, or the container has no `consolidation`): "
                      "the baseline alone")
            if reused:
                assert cache is not None
                stream = pickle.loads((cache / "stream.pickle").read_bytes())
                if store != "sqlite":
                    stream = moved(cache, stream, app, Path(folder), args, mode, embedder)
                print(f"  the adds as kept in {cache}", flush=True)
            else:
                stream = add_all(app, lines, split, args.every, has_pass)
            if cache is not None and not reused and store == "sqlite":
                cache.mkdir(parents=True, exist_ok=True)
                with sqlite3.connect(Path(folder) / "memspace.db") as source, \
                        sqlite3.connect(cache / "memspace.db") as copy:
                    source.backup(copy)
                (cache / "stream.pickle").write_bytes(pickle.dumps(stream))
            print(f"  adds: {dict(stream.statuses)}, {stream.forced} sent again with force "
                  f"after `conflict`, {len(stream.absorbed)} absorbed by another fact's memory, "
                  f"{stream.add_seconds:.1f} s, {stream.add_calls} model calls", flush=True)
            if has_pass and args.every:
                # The baseline is a stream with no pass at all: its own space, the same adds.
                base_stream = add_all(app, lines, split + "-base", 0, False)
                baseline = score(app, lines, base_stream, ())
            else:
                baseline = score(app, lines, stream, ())
            after = None
            if has_pass:
                while True:
                    run_pass(app, stream)
                    last = stream.reports[-1]
                    if not args.until_quiet or not last.changes or len(stream.reports) > 20:
                        break
                after = score(app, lines, stream, stream.reports)
        finally:
            app.close()
    table(baseline, after)
    if after is not None:
        print(f"  wrong deactivations after the pass: {after['wrong_deactivations'] or 'none'}; "
              f"stale facts: {after['stale_facts'] or 'none'}")
        for item in after["retirements_wrong"]:
            print(f"  WRONG {item['kind']}: retired {item['retired']!r} for {item['kept']!r}")
        for link in after["links"]["list"]:  # right: one the labels expect
            print(f"  link {link['type']}{' (right)' if link['right'] else ''}"
                  f"{' (carried)' if link.get('carried') else ''}: "
                  f"{link['from']} -> {link['to']}")
        print(f"  queue by sides: {after['queue']['by_sides']}, other kinds "
              f"{after['queue']['other_kinds']}; pass seconds per 1,000 memories changed: "
              f"{after['pass_cost']['seconds_per_1000_changed']}")
    suffix = (f"_every{args.every}" if args.every else "") + \
        (f"_first{args.limit}" if args.limit else "")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{store}_{mode}_{split}{suffix}.json"
    out.write_text(json.dumps({
        "command": " ".join([".venv/bin/python", *sys.argv]),
        "store": store, "mode": mode, "split": split, "every": args.every,
        "adds": {"statuses": dict(stream.statuses), "forced": stream.forced,
                 "absorbed": stream.absorbed, "model_calls": stream.add_calls,
                 "prompt_tokens": stream.add_prompt,
                 "completion_tokens": stream.add_completion,
                 "seconds": round(stream.add_seconds, 1)},
        "baseline": baseline, "after_pass": after}, indent=1) + "\n")
    print(f"  written {out.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=("sqlite", "neo4j", "both"), default="sqlite")
    parser.add_argument("--mode", choices=("flat", "model", "both"), default="flat")
    parser.add_argument("--split", choices=("tune", "test", "both"), default="tune")
    parser.add_argument("--every", type=int, default=0,
                        help="also run the pass after every N adds (0: once, after the stream)")
    parser.add_argument("--until-quiet", action="store_true",
                        help="after the stream, repeat the pass until one changes nothing")
    parser.add_argument("--no-pass", action="store_true", help="the baseline alone")
    parser.add_argument("--explain", action="store_true",
                        help="print what the pass's model said about each group (debug log)")
    parser.add_argument("--adds-cache", default=None,
                        help="a folder: keep the adds' SQLite store there on the first run, "
                             "reuse it on later runs (SQLite, without --every)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N adds")
    parser.add_argument("--local", action="store_true",
                        help="model mode with tools/llm-local (`make llm`) at 127.0.0.1:"
                             "$LLM_LOCAL_PORT (8091)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per model call")
    parser.add_argument("--neo4j-uri", default=os.environ.get("MEMSPACE_NEO4J_URI",
                                                              "bolt://127.0.0.1:7687"))
    args = parser.parse_args()
    if args.explain:
        logging.basicConfig(format="    %(message)s")
        logging.getLogger("memspace.services.consolidation").setLevel(logging.DEBUG)
    print("command: " + " ".join([".venv/bin/python", *sys.argv]))
    stores = ("sqlite", "neo4j") if args.store == "both" else (args.store,)
    modes = ("flat", "model") if args.mode == "both" else (args.mode,)
    splits = ("tune", "test") if args.split == "both" else (args.split,)
    if "model" in modes and not args.local and not os.environ.get("MEMSPACE_LLM_MODEL"):
        print("model mode needs --local (after `make llm`) or MEMSPACE_LLM_MODEL; flat only")
        modes = tuple(m for m in modes if m != "model")
    from memspace.embeddings.local import LocalEmbedder
    embedder = LocalEmbedder()
    for store in stores:
        for mode in modes:
            for split in splits:
                run_one(store, mode, split, args, embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
