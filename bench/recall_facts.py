"""Facts a language model writes from each turn when it is saved, searched beside the turns, on
the conversation benchmarks of recall_conversations.py (saved with metadata, the default
features). Prints; asserts nothing.

Each turn goes through the project's own extraction, facts only (prompt `extract_facts_only.v1`,
the first pass of MEMSPACE_EXTRACTION_PASSES=2, with its grounding guard; no candidates, so no
relation is asked): from "Caroline: I went to a LGBTQ support group yesterday and it was so
powerful." the local model wrote "Caroline went to a LGBTQ support group yesterday." A fact
found counts as the turn it came from. The ways:

  turns                     search_memory over the turns as they are (the baseline)
  facts                     a search of the facts alone, each hit read as its turn
  rrf(turns, facts)         the two rankings above fused by reciprocal rank (k = 60)
  one space                 turns and facts in one space (the facts saved by a second key, with
                            the turn's time), each fact hit read as its turn

A measurement of a write-time rewrite for the multi-evidence gap (issue 41,
docs/conversations.md): the model is asked once per turn when it is saved, never per search.

The model's facts are kept in a JSON file (turn key -> facts; --facts, default
bench/results/facts/<--name>.json), so a rerun without the model gives the same figures.

Usage: recall_facts.py [--only locomo|chats] [--conversations 26,30] [--model openai/local]
                       [--api-base http://127.0.0.1:8091/v1] [--name qwen2.5-coder-1.5b]
                       [--facts FILE]
(`make llm` serves the pinned local model at that address.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_conversations import Bench, benches, flat_app, primed, saved_turns, tables
from recall_guesses import fused, model_arguments, multi_evidence
from recall_locomo import ROOT, CachedEmbedder, Conversation, Turn

from memspace.domain.errors import ExtractionFailed
from memspace.domain.models import Access
from memspace.llm.two_pass import TwoPassExtractor
from memspace.services.search.search import SearchRequest

DEPTH = 30  # each search's page: what the fusion reads


class Facts:
    """The model's facts per turn, asked once and kept in `keep`."""

    def __init__(self, model: str, api_base: str, api_key: str, keep: Path) -> None:
        self._extractor = TwoPassExtractor(model, api_base, api_key, timeout_s=600)
        self._keep = keep
        self._known: dict[str, list[str]] = json.loads(keep.read_text()) if keep.exists() else {}
        self.asked = self.failed = 0
        self.seconds = 0.0

    def __call__(self, key: str, turn: Turn) -> list[str]:
        if key not in self._known:
            began = time.perf_counter()
            try:
                facts = [f.text for f in self._extractor.extract(
                    turn.content, (), speaker=turn.speaker, observed_at=turn.observed_at).facts]
            except ExtractionFailed:
                facts = []
                self.failed += 1
            self.seconds += time.perf_counter() - began
            self.asked += 1
            self._known[key] = facts
            self._keep.parent.mkdir(parents=True, exist_ok=True)
            self._keep.write_text(json.dumps(self._known, indent=0, sort_keys=True))
        return self._known[key]


Rows = dict[str, dict[str, list[list[set[str]]]]]  # way -> conversation -> each question's top 10


def asked(bench: Bench, embedder: CachedEmbedder, facts: Facts) -> Rows:
    """Loads each conversation's turns with metadata, its facts apart and both together, then
    asks each question every way; per way and conversation, each question's top 10 (turn ids)."""
    app = flat_app(embedder, "memspace-facts-")
    stamp = int(time.time())
    answers: Rows = defaultdict(lambda: defaultdict(list))
    try:
        for c in bench.conversations:
            slugs, who, extractor = spaces(app, f"facts-{c.name}-{stamp}", ("turns", "facts", "both"))
            turns = saved_turns(app, who, slugs["turns"], c)  # memory id -> turn ids
            turns |= saved_turns(app, who, slugs["both"], c)
            written = {t.dia_id: facts(f"{bench.name}:{c.name}:{t.dia_id}", t) for t in c.turns}
            saved_writings(app, extractor, [slugs["facts"], slugs["both"]], c, written, turns)
            search = searcher(app, who, slugs)

            for q in c.questions:
                alone, found = search(q["question"], "turns"), search(q["question"], "facts")
                ways = {"turns": alone, "facts": found, "rrf(turns, facts)": fused([alone, found], [1, 1]),
                        "one space": search(q["question"], "both")}
                for way, ranking in ways.items():
                    answers[way][c.name].append(first_turns(ranking, turns))
    finally:
        app.close()
    return answers


def spaces(app: Any, prefix: str, ways: tuple[str, ...]) -> tuple[dict[str, str], Any, Any]:
    """A new space per way (way -> slug), the identity of a key saving the turns and that of a
    second key saving what the model wrote, both reading and writing every one of them."""
    slugs = {way: f"{prefix}-{way}".replace(":", "-") for way in ways}
    for slug in slugs.values():
        app.admin.create_space(slug)
    keys = [app.access.authenticate(app.admin.create_key(
        f"{prefix}-{who}", {s: Access.READWRITE for s in slugs.values()}).raw) for who in ("turns", "model")]
    return slugs, keys[0], keys[1]


def saved_writings(app: Any, writer: Any, slugs: list[str], conversation: Conversation,
                   written: dict[str, list[str]], turns: dict[str, set[str]]) -> None:
    """Adds the texts the model wrote for each turn of `conversation` (turn id -> texts) to each
    space of `slugs` as `writer`, with the turn's time, and each memory's turn to `turns` (memory
    id -> turn ids; a text saved as a memory already there adds its turn to that memory's)."""
    for t in conversation.turns:
        for text in written[t.dia_id]:
            for slug in slugs:
                turns[app.memories.add(writer, text, space=slug,
                                       observed_at=t.observed_at).memories[0].id].add(t.dia_id)


def searcher(app: Any, who: Any, slugs: dict[str, str]) -> Callable[[str, str], list[str]]:
    """search(text, way): the ids of the first DEPTH memories `who` finds for `text` in the
    space of `way`."""
    def search(text: str, way: str) -> list[str]:
        return [h.memory.id for h in app.search.search(who, SearchRequest(
            query=text, space=slugs[way], include_profile=False, limit=DEPTH)).hits]
    return search


def first_turns(ranking: list[str], turns: dict[str, set[str]], k: int = 10) -> list[set[str]]:
    """The first `k` distinct turns a ranking of memories names (a turn and its facts count once)."""
    out: list[set[str]] = []
    seen: set[frozenset[str]] = set()
    for memory in ranking:
        key = frozenset(turns[memory])
        if key not in seen:
            seen.add(key)
            out.append(turns[memory])
        if len(out) == k:
            break
    return out


def run(doc: str, kept: str, writer: Callable[[argparse.Namespace, Path], Any],
        asked: Callable[[Bench, CachedEmbedder, Any], Rows]) -> None:
    """The command line of a bench whose model writes something for each turn (`writer`, built
    from the options and its kept file, bench/results/<kept>/<name>.json by default): per
    benchmark, the rows `asked` gives on every question and on the multi-evidence ones."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    model_arguments(parser, kept)
    parser.add_argument("--conversations", help="comma-separated names to keep (default: all)")
    args = parser.parse_args()
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    written = writer(args, getattr(args, kept) or ROOT / "bench" / "results" / kept / f"{args.name}.json")
    model = LOCAL_MODELS["e5-small-v2"]
    keep = set(args.conversations.split(",")) if args.conversations else None
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for bench in benches(args.only, args.locomo, args.chats):
        embedder = primed(bench, bench.vectors(LocalEmbedder(model), model.name))
        if keep:
            bench = Bench(bench.name, [c for c in bench.conversations if c.name in keep], bench.tune)
        written.asked, written.failed, written.seconds = 0, 0, 0.0
        began = time.perf_counter()
        rows = asked(bench, embedder, written)
        print(f"\n{bench.name}: {len(bench.conversations)} conversations, loaded and asked in "
              f"{time.perf_counter() - began:.0f} s; the model read {written.asked} new turns"
              + (f", {written.seconds / written.asked:.1f} s each, {written.failed} failed"
                 if written.asked else ""))
        tables(bench, rows)
        tables(*multi_evidence(bench, rows))


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    run(__doc__, "facts", lambda args, keep: Facts(args.model, args.api_base, args.api_key, keep), asked)
