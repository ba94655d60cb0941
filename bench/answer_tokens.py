"""What an answer costs: how many tokens of search_memory's text (as a client receives it) a
reader takes before the evidence appears, and how many a search costs. Prints; asserts nothing.

Two question sets, each asked through `search_memory` with default arguments (10 hits, their
related memories, the space profile):
  - LoCoMo (../shared/bench/locomo10, loaded as bench/recall_locomo.py loads it: one space per
    conversation, one memory per turn with its speaker and the session's date, flat mode); the
    evidence of a question is its evidence turns;
  - the demo (seed/demo.json, both spaces): questions a newcomer asks of it, each with the
    words of the memories that answer it (DEMO below), written for this bench.

Each answer is rendered twice from the same search, by today's renderer (present/search_text.py)
and by the one before it (`before_text`, kept here and nowhere else), alternating which goes
first. A reader reads from the top: the evidence appears at the end of the first line naming an
evidence memory (a hit's head and its first quoted line, or a related memory's one line); the
tokens to there are cl100k's (llm/tokens.py). Recall within B tokens: the share of questions
whose evidence appears within B; a question whose evidence is not in the text never counts.

Beside the text, the structured content MCP sends with it (compact JSON, as on the wire), which
Claude Code, Codex and Copilot CLI give their model in place of the text: before, every field of
each hit (what `fullRecords: true` answers now); after, the lean default
(present/search_lean.py). Its tokens per search are the second table.

Usage:
  answer_tokens.py [--only 26,30] [--data ../shared/bench/locomo10] [--no-demo] [--no-locomo]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from recall_locomo import CACHE, DATA, CachedEmbedder, likely_texts, load  # noqa: E402

from memspace.cli.ingest import PLAN, seed_dir  # noqa: E402
from memspace.domain.models import Access, MemoryFilter  # noqa: E402
from memspace.domain.quoting import NOTICE, QUOTE  # noqa: E402
from memspace.domain.text import counted  # noqa: E402
from memspace.llm.tokens import TokenCounter  # noqa: E402
from memspace.present.json import search_json  # noqa: E402
from memspace.present.search_lean import search_lean_json  # noqa: E402
from memspace.present.search_text import search_text  # noqa: E402
from memspace.present.text import memory_line  # noqa: E402
from memspace.present.timeline import TODAY_LEFT_OUT, slice_text  # noqa: E402
from memspace.services.access import AccessService, Principal  # noqa: E402
from memspace.services.search import SearchRequest, SearchResult  # noqa: E402
from memspace.startup.container import Container, build  # noqa: E402
from memspace.startup.settings import Settings  # noqa: E402

BUDGETS = (250, 500, 1000, 2000)
# (space, question, words of each memory that answers it): written for this bench.
DEMO = [
    ("acme-rebuild", "where is the Acme storefront hosted, and what did it replace?",
     ["own Kubernetes cluster"]),
    ("acme-rebuild", "what was the storefront hosted on before?", ["hosted on Vercel"]),
    ("acme-rebuild", "how do we deploy to production?", ["Production deploys happen on"]),
    ("acme-rebuild", "which day do production deploys happen?", ["Production deploys happen on"]),
    ("acme-rebuild", "how fast must checkout answer?", ["300 ms"]),
    ("acme-rebuild", "which Postgres version does billing run?", ["version 16"]),
    ("acme-rebuild", "who owns the Stripe integration?", ["Ana owns the payments"]),
    ("acme-rebuild", "how are Stripe webhooks retried?", ["webhooks are retried"]),
    ("acme-rebuild", "where do feature flags live?", ["Unleash"]),
    ("acme-rebuild", "how long does the CDN cache pages?", ["caches them at the CDN"]),
    ("support", "who can approve a refund of 80 euros?", ["Refunds under 100 euros"]),
    ("support", "when is the support desk open?", ["Support hours are"]),
    ("support", "what happens to an outage ticket at night?", ["outside support hours"]),
    ("support", "what do we do when a customer says the shop is down?", ["status page"]),
]


def before_text(found: SearchResult) -> str:
    """search_memory's text before it was made lean: every id whole, every related memory with
    its own head and quote, a related memory that is a hit repeated under it."""
    head = f"{counted(len(found.hits), 'result')} in space '{found.space}' ({found.mode} search" + (
        ", cold: the store's indexes" if found.path == "cold" else "") + ")" + slice_text(found.at)
    empty = (f". {found.message}." if found.message
             else ". Nothing matched; try other words or a keyword.")
    lines = [head + (":" if found.hits else empty)] + ([NOTICE] if found.hits else [])
    for n, hit in enumerate(found.hits, start=1):
        lean = not found.include_body
        lines.append(f"{n}. {memory_line(hit.memory, found.titles, lean)}")
        for rel in hit.related:
            arrow = "->" if rel.direction == "out" else "<-"
            lines.append(f"     {arrow} {rel.via.value} ({counted(rel.hops, 'hop')}): "
                         f"{memory_line(rel.memory, found.titles, lean, 120)}")
    if found.profile_left_out:
        lines.append(f"The space's profile is {TODAY_LEFT_OUT}.")
    if found.profile is not None:
        stats = found.profile.stats
        lines.append(f"Space '{found.profile.space.slug}'{' today' if found.at else ''}: "
                     f"{counted(stats.active_memories, 'active memory', 'active memories')}, "
                     f"{counted(stats.relations, 'relation')}.")
    return "\n".join(lines)


def after_text(found: SearchResult) -> str:
    return search_text(found)


def reached(text: str, markers: Sequence[str], count: Callable[[str], int]) -> int | None:
    """Tokens read until the first evidence memory is read: through the line naming it, and a
    hit's first quoted line after its head; None when the text names none."""
    places = [i for i in (text.find(m) for m in markers) if i >= 0]
    if not places:
        return None
    end = text.find("\n", min(places))
    end = len(text) if end < 0 else end
    if QUOTE not in text[text.rfind("\n", 0, end) + 1:end]:  # a hit's head: its quote follows
        after = text.find("\n", end + 1)
        end = len(text) if after < 0 else after
    return count(text[:end])


class Tally:
    def __init__(self) -> None:
        self.reached: list[int | None] = []
        self.sizes: list[int] = []
        self.structured: list[int] = []

    def row(self) -> str:
        n = len(self.reached)
        within = "  ".join(f"{b:>5,}: {sum(1 for r in self.reached if r is not None and r <= b) / n:.3f}"
                           for b in BUDGETS)
        found = sorted(r for r in self.reached if r is not None)
        sizes = sorted(self.sizes)
        p95 = sizes[int(0.95 * (len(sizes) - 1))]
        to_evidence = f"{statistics.median(found):,.0f}" if found else "-"
        return (f"recall within {within}  | tokens to the evidence (median, found) {to_evidence:>5}"
                f"  | tokens per search median {statistics.median(sizes):,.0f} p95 {p95:,}  (n={n})")


def spread(sizes: list[int]) -> str:
    ordered = sorted(sizes)
    return (f"median {statistics.median(ordered):,.0f} p95 {ordered[int(0.95 * (len(ordered) - 1))]:,}"
            f"  (n={len(ordered)})")


def wire(data: dict[str, object]) -> str:
    """The structured content as the server sends it: compact JSON, text as it is."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def ask(app: Container, who: Principal, space: str, question: str, evidence: set[str],
        tallies: dict[str, Tally], count: Callable[[str], int], first: int) -> None:
    found = app.search.search(who, SearchRequest(query=question, space=space))
    renderers = [("before", before_text), ("after", after_text)]
    shapes = {"before": lambda: search_json(found, lean_profile=True),
              "after": lambda: search_lean_json(found)}
    for name, render in renderers[first:] + renderers[:first]:  # alternated, one search
        text = render(found)
        markers = ([f"[{i}]" for i in evidence] if name == "before" else
                   [f"[{found.short.get(i, i)}]" for i in evidence])
        tallies[name].reached.append(reached(text, markers, count))
        tallies[name].sizes.append(count(text))
        tallies[name].structured.append(count(wire(shapes[name]())))


def locomo(app: Container, embedder: CachedEmbedder, data: Path, only: set[str] | None,
           count: Callable[[str], int]) -> dict[str, Tally]:
    conversations = load(data, only)
    embedder.prime(*likely_texts(conversations))
    embedder.save()
    run = int(time.time())
    slugs = {c.name: f"tokens-{c.name}-{run}" for c in conversations}
    for slug in slugs.values():
        app.admin.create_space(slug)
    who = app.access.authenticate(app.admin.create_key(
        "tokens", {s: Access.READWRITE for s in slugs.values()}).raw)
    tallies: dict[str, Tally] = defaultdict(Tally)
    n = 0
    for c in conversations:
        by_dia: dict[str, str] = {}
        for t in c.turns:
            result = app.memories.add(who, t.content, space=slugs[c.name], speaker=t.speaker,
                                      observed_at=t.observed_at)
            by_dia[t.dia_id] = result.memories[0].id
        # warm, as a server that has held the space since its start answers (recall_locomo.py)
        space_id = app.access.resolve(who, slugs[c.name]).space.id
        app.store.vector_cache.load(app.store.search, space_id)  # type: ignore[attr-defined]
        for q in c.questions:
            evidence = {by_dia[d] for d in q["evidence"] if d in by_dia}
            ask(app, who, slugs[c.name], q["question"], evidence, tallies, count, n % 2)
            n += 1
    return tallies


def demo(app: Container, count: Callable[[str], int]) -> dict[str, Tally]:
    folder = seed_dir()
    app.seeder.load((folder / PLAN).read_text(encoding="utf-8"),
                    lambda name: (folder / name).read_bytes(), lambda _step: None)
    who = AccessService.operator()
    tallies: dict[str, Tally] = defaultdict(Tally)
    for n, (slug, question, words) in enumerate(DEMO):
        space = app.access.resolve(who, slug).space
        held = app.store.reads.list_memories(MemoryFilter(space.id, include_inactive=True), 500)
        evidence = {m.id for m in held if any(w in m.content for w in words)}
        assert evidence, f"no demo memory holds {words}"
        ask(app, who, slug, question, evidence, tallies, count, n % 2)
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="LoCoMo conversations (file stems), e.g. 26,30")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--no-locomo", action="store_true")
    args = parser.parse_args()
    from memspace.embeddings.local import E5_SMALL, LocalEmbedder

    counter = TokenCounter()
    if not counter.exact:
        raise SystemExit("cl100k_base is not available from litellm's bundled copy")
    embedder = CachedEmbedder(LocalEmbedder(E5_SMALL), CACHE / f"locomo-{E5_SMALL.name}-vectors.json")
    app = build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp(prefix="memspace-tokens-")),  # type: ignore[call-arg]
                         llm_model=""), embedder=embedder)
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    parts: list[tuple[str, dict[str, Tally]]] = []
    if not args.no_demo:
        parts.append(("demo (both spaces, 14 questions)", demo(app, counter.count)))
    if not args.no_locomo:
        only = set(args.only.split(",")) if args.only else None
        parts.append((f"LoCoMo ({args.only or 'all ten'})", locomo(app, embedder, args.data, only,
                                                                   counter.count)))
    app.close()
    for title, tallies in parts:
        print(f"\n{title}:")
        for name in ("before", "after"):
            print(f"  {name:6s} {tallies[name].row()}")
        print("  structured content, tokens per search:")
        for name in ("before", "after"):
            print(f"  {name:6s} {spread(tallies[name].structured)}")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
