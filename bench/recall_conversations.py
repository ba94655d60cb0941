"""Recall on two conversation benchmarks, saved as plain text and with metadata, and with each
conversation feature switched off in turn. Prints; asserts nothing.

  LoCoMo  two friends, short turns, sessions dated (../shared/bench/locomo10; see
          recall_locomo.py). Tune part: conversations 26-44; reported part: 47-50.
  chats   one person and an assistant, first-person questions, most about when
          (bench/data/chats.json, written by bench/make_chats.py). Tune part: chat-1..3;
          reported part: chat-4..6.

One space per conversation, one memory per turn, content "<speaker>: <text>", saved one add at
a time by one writer in flat mode (no model), as an agent logging a chat would:
  plain text     content only
  with metadata  content, `speaker` and `observedAt` (the turn's time; LoCoMo gives only the
                 session's), with the default conversation features (services/memories/conversation.py)
  without X      with metadata, feature X off (MEMSPACE_CONVERSATION_FEATURES)
  with context   with metadata, the default features and `context` (off by default)
Every question with evidence is asked through `search_memory` (top 10, no profile). A question
is an any-hit at k when one of its evidence turns is in the top k, an all-hit when all are.

Usage: recall_conversations.py [--only locomo|chats] [--locomo ../shared/bench/locomo10]
                               [--chats bench/data/chats.json] [--no-ablation]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_locomo import CACHE, ROOT, TUNED, CachedEmbedder, Conversation, Turn, likely_texts
from recall_locomo import DATA as LOCOMO
from recall_locomo import load as load_locomo

from memspace.domain.models import Access
from memspace.services.memories.conversation import FEATURES, TurnFeatures
from memspace.services.search.search import SearchRequest
from memspace.startup.container import build
from memspace.startup.settings import Settings

CHATS = ROOT / "bench" / "data" / "chats.json"
CHATS_TUNED = {"chat-1", "chat-2", "chat-3"}
KS = (3, 5, 10)


@dataclass
class Bench:
    name: str
    conversations: list[Conversation]
    tune: set[str]  # conversation names of the tune part; the rest is reported apart

    def temporal(self, q: dict[str, Any]) -> bool:
        return q["category"] in (2, "temporal")

    def vectors(self, inner: Any, model: str) -> CachedEmbedder:
        """`inner` with the vectors `model` gave this benchmark's texts in earlier runs, kept in
        CACHE/<benchmark>-<model>-vectors.json."""
        return CachedEmbedder(inner, CACHE / f"{self.name.lower()}-{model}-vectors.json")


def load_chats(path: Path) -> list[Conversation]:
    out = []
    for c in json.loads(path.read_text())["conversations"]:
        turns = [Turn(t["id"], t["role"], f'{t["role"]}: {t["text"]}',
                      datetime.fromisoformat(t["time"].replace("Z", "+00:00")), n + 1)
                 for n, s in enumerate(c["sessions"]) for t in s["turns"]]
        out.append(Conversation(c["name"], turns, c["questions"]))
    return out


def flat_app(embedder: CachedEmbedder, prefix: str, **settings: Any) -> Any:
    """The service on a fresh embedded store in a new temporary folder, flat mode (no model),
    e5-small-v2 through `embedder`, with any other `settings`."""
    return build(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp(prefix=prefix)),  # type: ignore[call-arg]
                          store="sqlite", embedding_model="e5-small-v2", llm_model="", **settings),
                 embedder=embedder)


def keyed_space(app: Any, slug: str) -> Any:
    """A new space `slug` and the identity of a new key that reads and writes it."""
    app.admin.create_space(slug)
    return app.access.authenticate(app.admin.create_key(slug, {slug: Access.READWRITE}).raw)


def saved_turns(app: Any, who: Any, slug: str, conversation: Conversation,
                metadata: bool = True) -> dict[str, set[str]]:
    """Adds the turns of `conversation` to space `slug` one at a time as `who`, with `speaker`
    and `observedAt` when `metadata`; per memory id, the turn ids it holds (a turn said twice
    word for word is one memory)."""
    turns: dict[str, set[str]] = defaultdict(set)
    for t in conversation.turns:
        extra: dict[str, Any] = ({"speaker": t.speaker, "observed_at": t.observed_at}
                                 if metadata else {})
        turns[app.memories.add(who, t.content, space=slug, **extra).memories[0].id].add(t.dia_id)
    return turns


def asked(bench: Bench, embedder: CachedEmbedder, metadata: bool, features: TurnFeatures,
          variants: dict[str, TurnFeatures]) -> dict[str, dict[str, list[list[set[str]]]]]:
    """Loads the benchmark into a fresh store (adds with `features`), then asks every question
    once per search variant; per variant and conversation, each question's top 10 (turn ids)."""
    app = flat_app(embedder, "memspace-conv-", conversation_features=",".join(
        f for f in FEATURES if getattr(features, f)) or "none")
    run = int(time.time())
    slugs = {c.name: f"conv-{c.name.replace(':', '-')}-{run}" for c in bench.conversations}
    for slug in slugs.values():
        app.admin.create_space(slug)
    who = app.access.authenticate(app.admin.create_key(
        "bench", {s: Access.READWRITE for s in slugs.values()}).raw)
    answers: dict[str, dict[str, list[list[set[str]]]]] = defaultdict(dict)
    for c in bench.conversations:
        ids = saved_turns(app, who, slugs[c.name], c, metadata)
        for variant, searched in variants.items():
            app.search.features = searched
            answers[variant][c.name] = [
                [ids[h.memory.id] for h in app.search.search(who, SearchRequest(
                    query=q["question"], space=slugs[c.name], include_profile=False)).hits]
                for q in c.questions]
    app.close()
    return answers


def run(bench: Bench, embedder: CachedEmbedder, ablation: bool) -> dict[str, Any]:
    """Every row of the table: plain text, with metadata (the default features) and (ablation)
    without each default feature, and with `context` added (off by default). A store is loaded
    once per way of adding (plain; metadata; metadata with context), and each search-time
    feature is switched off between searches of the same store."""
    default = TurnFeatures()
    rows: dict[str, Any] = {}
    rows["plain text"] = asked(bench, embedder, False, default, {"plain": default})["plain"]
    searched = {"with metadata": default}
    if ablation:
        searched |= {f"  without {f}": default.without(f) for f in FEATURES
                     if getattr(default, f)}
    rows |= asked(bench, embedder, True, default, searched)
    if ablation:
        rows["  with context"] = asked(bench, embedder, True, default.adding("context"),
                                       {"x": default.adding("context")})["x"]
    return rows


def benches(only: str | None, locomo: Path = LOCOMO, chats: Path = CHATS) -> list[Bench]:
    """Both benchmarks with their tune parts, or the one `only` names ("locomo", "chats")."""
    out = []
    if only != "chats":
        conversations = load_locomo(locomo, None)
        if not conversations:
            raise SystemExit(f"no LoCoMo conversations in {locomo} (--locomo DIR)")
        out.append(Bench("LoCoMo", conversations, TUNED))
    if only != "locomo":
        out.append(Bench("chats", load_chats(chats), CHATS_TUNED))
    return out


def primed(bench: Bench, embedder: CachedEmbedder) -> CachedEmbedder:
    """`embedder` holding the vectors of every turn and question of `bench`, kept for a rerun."""
    embedder.prime(*likely_texts(bench.conversations))
    embedder.save()
    return embedder


def tables(bench: Bench, rows: dict[str, Any]) -> None:
    """The table of `rows` on the reported part, the tune part and the whole benchmark."""
    every = {c.name for c in bench.conversations}
    table(bench, rows, every - bench.tune, "reported part (held out from tuning)")
    table(bench, rows, bench.tune, "tune part")
    table(bench, rows, None, "all")


def table(bench: Bench, rows: dict[str, Any], names: set[str] | None, title: str) -> None:
    if not any(names is None or c.name in names for c in bench.conversations):
        return  # a run of some conversations only: this part has none
    print(f"\n{bench.name}, {title}:")
    print(f"  {'':22s} {'R@3 any/all':>13s} {'R@5 any/all':>13s} {'R@10 any/all':>13s}"
          f" {'temporal R@10 any/all':>22s}")
    for label, answers in rows.items():
        hits: dict[tuple[str, int, bool], int] = defaultdict(int)
        n = nt = 0
        for c in bench.conversations:
            if names is not None and c.name not in names:
                continue
            for q, found in zip(c.questions, answers[c.name], strict=True):
                evidence = set(q["evidence"])
                n += 1
                nt += bench.temporal(q)
                for k in KS:
                    seen: set[str] = set().union(*found[:k]) if found[:k] else set()
                    for kind, hit in (("any", bool(evidence & seen)), ("all", evidence <= seen)):
                        hits[(kind, k, False)] += hit
                        if bench.temporal(q):
                            hits[(kind, k, True)] += hit
        cells = [f"{hits[('any', k, False)] / n:.3f}/{hits[('all', k, False)] / n:.3f}"
                 for k in KS]
        temporal = (f"{hits[('any', 10, True)] / nt:.3f}/{hits[('all', 10, True)] / nt:.3f}"
                    if nt else "-")
        print(f"  {label:22s} {cells[0]:>13s} {cells[1]:>13s} {cells[2]:>13s} {temporal:>22s}"
              + (f"   (n={n}, temporal {nt})" if label == "plain text" else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("locomo", "chats"))
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--chats", type=Path, default=CHATS)
    parser.add_argument("--no-ablation", action="store_true",
                        help="only plain text and with metadata")
    args = parser.parse_args()
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    model = LOCAL_MODELS["e5-small-v2"]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for bench in benches(args.only, args.locomo, args.chats):
        embedder = primed(bench, bench.vectors(LocalEmbedder(model), model.name))
        began = time.perf_counter()
        rows = run(bench, embedder, not args.no_ablation)
        turns = sum(len(c.turns) for c in bench.conversations)
        print(f"\n{bench.name}: {len(bench.conversations)} conversations, {turns:,} turns, "
              f"loaded and asked in {time.perf_counter() - began:.0f} s")
        tables(bench, rows)

if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
