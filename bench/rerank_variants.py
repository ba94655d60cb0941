"""Ways of reordering a hybrid search's ranking, measured on the two conversation benchmarks of
recall_conversations.py (saved with metadata, the default features). Prints; asserts nothing.

Each benchmark is loaded once and every question asked once through `search_memory`; the lists
the search blends (services/search/ranking.py `blend`) are recorded, and each variant reorders the
blended ranking of every question again, without asking the store, so a variant costs seconds.
The variants are the ones tried for issue 41 against multi-evidence questions (a question whose
evidence is several turns, often of different sessions: docs/conversations.md, Limits):

  baseline         the search as it is
  mmr L/T          maximal marginal relevance over the top 30: a hit is chosen by its score
                   less L x (its highest cosine to a hit already chosen - T, when above 0)
  chain cap N      at most N hits of one chain of `follows` links among the candidates
  session cap N    at most N hits of one of the benchmark's sessions (its own labels, which no
                   rule could read: an analysis of how much a cap could do, not a rule)
  speakers rr      a query naming several speakers: their turns taken in turn
  residual B       after the top 3, hits re-scored by B x their cosine to what of the query the
                   top 3 do not cover (the query less its projection on their vectors)
  split and        a question with "X and Y" also asked as "... X ..." and "... Y ...": the
                   best hit of a part not in the top 9 takes the 10th place
The last rows are the baseline's own R@k all at k = 20, 30, 50 (how deep the evidence sits),
and where the evidence turns of the multi-evidence questions it misses are.

Usage: rerank_variants.py [--only locomo|chats] [--locomo ../shared/bench/locomo10]
                          [--chats bench/data/chats.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_conversations import CHATS, Bench, benches, flat_app, keyed_space, saved_turns
from recall_locomo import DATA as LOCOMO
from recall_locomo import CachedEmbedder

import memspace.services.search.search as search_module
from memspace.domain.text import words
from memspace.services.search.ranking import Ranked, named
from memspace.services.search.search import SearchRequest

POOL = 30


@dataclass
class Asked:
    question: dict[str, Any]
    ranked: list[Ranked]  # the search's blended ranking, best first
    parts: list[list[str]]  # memory ids of each part's top 10 ("split and")
    turns: dict[str, set[str]]  # memory id -> turn ids
    texts: dict[str, str]  # memory id -> the content as sent (the embedder's cache key)
    sessions: dict[str, int]  # memory id -> its session in the benchmark (analysis only)
    tune: bool


def halves(question: str) -> list[str]:
    """The question without "and Y", and without "X and" (one word each side)."""
    toks = question.split()
    for i, t in enumerate(toks):
        if t.lower() == "and" and 0 < i < len(toks) - 1:
            return [" ".join(toks[:i] + toks[i + 2:]), " ".join(toks[:i - 1] + toks[i + 1:])]
    return []


def record(bench: Bench, embedder: CachedEmbedder) -> list[Asked]:
    """Loads `bench` with metadata and asks each question, keeping the blended ranking."""
    app = flat_app(embedder, "memspace-rr-")
    seen: list[list[Ranked]] = []
    original = search_module.blend
    search_module.blend = lambda *a, **k: seen.append(original(*a, **k)) or seen[-1]  # type: ignore[assignment]
    run, out = int(time.time()), []
    try:
        for c in bench.conversations:
            slug = f"rr-{c.name.replace(':', '-')}-{run}"
            who = keyed_space(app, slug)
            turns = saved_turns(app, who, slug, c)
            # A memory holding a turn said twice reads as the later of them.
            by_id = {t.dia_id: (n, t) for n, t in enumerate(c.turns)}
            said = {mid: max(by_id[i] for i in ids)[1] for mid, ids in turns.items()}
            texts = {mid: t.content for mid, t in said.items()}
            sessions = {mid: t.session for mid, t in said.items()}

            def ask(text: str, who: Any = who, slug: str = slug) -> list[str]:
                return [h.memory.id for h in app.search.search(who, SearchRequest(
                    query=text, space=slug, include_profile=False)).hits]

            for q in c.questions:
                seen.clear()
                ask(q["question"])
                ranked = seen[0]
                parts = [ask(p) for p in halves(q["question"])]
                out.append(Asked(q, ranked, parts, turns, texts, sessions, c.name in bench.tune))
    finally:
        search_module.blend = original
        app.close()
    return out


Variant = Callable[[Asked, CachedEmbedder], list[str]]


def ids(ranked: list[Ranked]) -> list[str]:
    return [r.memory.id for r in ranked]


def unit(rows: list[Any]) -> np.ndarray:
    x = np.asarray(rows, dtype=np.float64)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def mmr(weight: float, floor: float) -> Variant:
    def run(a: Asked, e: CachedEmbedder) -> list[str]:
        head = a.ranked[:POOL]
        sims = (x := unit(e.embed([a.texts[r.memory.id] for r in head]))) @ x.T
        left, chosen = list(range(len(head))), []
        closest = np.full(len(head), -1.0)
        while left:
            best = max(left, key=lambda i: head[i].score - weight * max(0.0, closest[i] - floor))
            chosen.append(best)
            left.remove(best)
            closest = np.maximum(closest, sims[best])
        return [head[i].memory.id for i in chosen] + ids(a.ranked[POOL:])
    return run


def chain_cap(cap: int, sessions: bool = False) -> Variant:
    """At most `cap` hits of one chain of links among the candidates; `sessions`: of one of
    the benchmark's own sessions instead (no rule could read them: how much a cap could do)."""
    def run(a: Asked, e: CachedEmbedder) -> list[str]:
        found = {r.memory.id: r.memory for r in a.ranked}

        def first(m: str) -> str:
            if sessions:
                return str(a.sessions.get(m))
            while (f := found[m].follows) in found and f is not None:
                m = f
            return m

        per: dict[str, int] = defaultdict(int)
        kept, later = [], []
        for r in a.ranked[:POOL]:
            group = first(r.memory.id)
            (kept if per[group] < cap else later).append(r.memory.id)
            per[group] += 1
        return kept + later + ids(a.ranked[POOL:])
    return run


def speakers_rr(a: Asked, e: CachedEmbedder) -> list[str]:
    asked = set(words(a.question["question"]))
    names = sorted({s for r in a.ranked if (s := r.memory.speaker) and named(s, asked)})
    if len(names) < 2:
        return ids(a.ranked)
    queues = {n: [r.memory.id for r in a.ranked[:POOL] if r.memory.speaker == n] for n in names}
    order: list[str] = []
    while any(queues.values()):
        order += [queues[n].pop(0) for n in names if queues[n]]
    return order + [r.memory.id for r in a.ranked if r.memory.id not in set(order)]


def residual(weight: float, keep: int = 3) -> Variant:
    def run(a: Asked, e: CachedEmbedder) -> list[str]:
        head = a.ranked[:2 * POOL]
        x = unit(e.embed([a.texts[r.memory.id] for r in head]))
        q = unit(e.embed_queries([a.question["question"]])[0])
        basis, _ = np.linalg.qr(x[:keep].T)
        rest = unit(q - basis @ (basis.T @ q)) @ x.T
        rest = (rest - rest.min()) / (np.ptp(rest) or 1.0)
        tail = sorted(range(keep, len(head)), key=lambda i: -(head[i].score + weight * rest[i]))
        return ids(head[:keep]) + [head[i].memory.id for i in tail] + ids(a.ranked[2 * POOL:])
    return run


def split_and(a: Asked, e: CachedEmbedder) -> list[str]:
    order = ids(a.ranked)
    extra = next((m for p in a.parts for m in p if m not in order[:9]), None)
    return order if extra is None else order[:9] + [extra] + [m for m in order[9:] if m != extra]


VARIANTS: dict[str, Variant] = {
    "baseline": lambda a, e: ids(a.ranked),
    "mmr 0.5/0.80": mmr(0.5, 0.80),
    "mmr 2/0.80": mmr(2.0, 0.80),
    "chain cap 3": chain_cap(3),
    "session cap 3": chain_cap(3, sessions=True),
    "speakers rr": speakers_rr,
    "residual 0.1": residual(0.1),
    "residual 0.2": residual(0.2),
    "split and": split_and,
}


def cells(asked: list[Asked], order: list[list[str]], ks: tuple[int, ...], kinds: tuple[str, ...]
          ) -> str:
    hits: dict[tuple[str, int], int] = defaultdict(int)
    for a, found in zip(asked, order, strict=True):
        evidence = set(a.question["evidence"])
        for k in ks:
            seen = set().union(*(a.turns.get(m, set()) for m in found[:k]))
            hits[("any", k)] += bool(evidence & seen)
            hits[("all", k)] += evidence <= seen
    return "  ".join(f"{hits[(kind, k)] / len(asked):.3f}" for k in ks for kind in kinds)


def missed(asked: list[Asked]) -> str:
    """R@10 all of questions with one evidence turn and with several, and where the evidence
    turns a multi-evidence question misses sit: in a session with no hit in the top 10, and
    not among the candidates of either list at all."""
    tally: dict[str, int] = defaultdict(int)
    for a in asked:
        evidence = set(a.question["evidence"])
        top = a.ranked[:10]
        seen = set().union(*(a.turns.get(r.memory.id, set()) for r in top))
        kind = "multi" if len(evidence) > 1 else "single"
        tally[kind] += 1
        tally[kind + " hit"] += evidence <= seen
        if kind == "single" or evidence <= seen:
            continue
        where = {d: a.sessions[m] for m, ds in a.turns.items() for d in ds}
        found = set().union(*(a.turns.get(r.memory.id, set()) for r in a.ranked))
        shown = {a.sessions[r.memory.id] for r in top}
        for d in evidence - seen:
            tally["missing"] += 1
            tally["other session"] += where.get(d) not in shown
            tally["no candidate"] += d not in found
    share = max(tally["missing"], 1)
    return (f"R@10 all, one evidence turn {tally['single hit'] / max(tally['single'], 1):.3f} "
            f"(n={tally['single']}), several {tally['multi hit'] / max(tally['multi'], 1):.3f} "
            f"(n={tally['multi']}); their missed evidence turns ({tally['missing']}): "
            f"{tally['other session'] / share:.0%} in a session with no top-10 hit, "
            f"{tally['no candidate'] / share:.0%} not a candidate")


def report(name: str, asked: list[Asked], embedder: CachedEmbedder) -> None:
    orders = {label: [v(a, embedder) for a in asked] for label, v in VARIANTS.items()}
    for part, tune in (("tune part", True), ("reported part", False)):
        rows = [i for i, a in enumerate(asked) if a.tune == tune]
        picked = [asked[i] for i in rows]
        print(f"\n{name}, {part} (n={len(rows)}), with metadata:")
        print(f"  {'':14s} R@5 any/all   R@10 any/all")
        for label, order in orders.items():
            print(f"  {label:14s} " + cells(picked, [order[i] for i in rows], (5, 10),
                                           ("any", "all")))
        deep = cells(picked, [orders["baseline"][i] for i in rows], (20, 30, 50), ("all",))
        print(f"  baseline R@20/30/50 all: {deep}")
        print(f"  {missed(picked)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("locomo", "chats"))
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--chats", type=Path, default=CHATS)
    args = parser.parse_args()
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    model = LOCAL_MODELS["e5-small-v2"]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for bench in benches(args.only, args.locomo, args.chats):
        embedder = bench.vectors(LocalEmbedder(model), model.name)
        embedder.prime([t.content for c in bench.conversations for t in c.turns],
                       [q["question"] for c in bench.conversations for q in c.questions]
                       + [h for c in bench.conversations for q in c.questions
                          for h in halves(q["question"])])
        embedder.save()
        report(bench.name, record(bench, embedder), embedder)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
