"""A language model's guesses at the answer, searched beside the question, on the two conversation
benchmarks of recall_conversations.py (saved with metadata, the default features). Prints;
asserts nothing.

For each question a model writes three sentences that could be the remembered answer (prompt
`guess_answer.v1`, temperature 0: hypothetical answers, "HyDE"), and the searches are blended:

  question alone          search_memory as it is (the baseline)
  question + guesses      one search of the question followed by the guesses
  rrf(question, q+g)      the two rankings above fused by reciprocal rank (k = 60)
  rrf(2 question, each)   the question's ranking (weight 2) fused with one search per guess

The last three ask a model at search time, which search_memory never does: a measurement of how
much of the multi-evidence gap (issue 41, docs/conversations.md) a query rewritten by a model
closes, and at what cost per search. The tables are recall_conversations.py's, on every question
and then on the multi-evidence ones (more than one evidence turn).

The model's answers are kept in a JSON file (question -> text; --guesses, default
bench/results/guesses/<--name>.json), so a rerun without the model gives the same figures.

Usage: recall_guesses.py [--only locomo|chats] [--model openai/local]
                         [--api-base http://127.0.0.1:8091/v1] [--name qwen2.5-coder-1.5b]
                         [--guesses FILE]
(`make llm` serves the pinned local model at that address.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_conversations import CHATS, Bench, benches, flat_app, keyed_space, primed, saved_turns, tables
from recall_locomo import DATA as LOCOMO
from recall_locomo import ROOT, CachedEmbedder, Conversation

from memspace.llm.prompts import load_prompt
from memspace.services.search.search import SearchRequest

PROMPT = "guess_answer.v1"
DEPTH = 30  # each search's page: what the fusions read
RRF_K = 60  # the usual constant of reciprocal-rank fusion; not tuned


class Kept:
    """A model's answers to prompt `prompt`, asked once per key and kept in `keep` (key -> text),
    so a rerun without the model reads the same answers."""

    def __init__(self, prompt: str, model: str, api_base: str, api_key: str, keep: Path) -> None:
        self._model, self._api_base, self._api_key, self._keep = model, api_base, api_key, keep
        self._prompt = load_prompt(prompt)
        self._known: dict[str, str] = json.loads(keep.read_text()) if keep.exists() else {}
        self.asked = self.failed = 0  # a failed call raises: nothing counts as failed
        self.seconds = 0.0

    def lines(self, key: str, **values: str) -> list[str]:
        """The first three lines of the answer to `values`, bullets and numbers stripped."""
        if key not in self._known:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch
            import litellm

            system, user = self._prompt.render(**values)
            began = time.perf_counter()
            reply = litellm.completion(
                model=self._model, api_base=self._api_base, api_key=self._api_key,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0, max_tokens=100, timeout=600)
            self.seconds += time.perf_counter() - began
            self.asked += 1
            self._known[key] = reply.choices[0].message.content or ""
            self._keep.parent.mkdir(parents=True, exist_ok=True)
            self._keep.write_text(json.dumps(self._known, indent=0, sort_keys=True))
        lines = (line.strip().lstrip("-*0123456789.) ").strip() for line in self._known[key].splitlines())
        return [line for line in lines if line][:3]


class Guesser(Kept):
    """The model's guesses at the answer to a question (prompt `guess_answer.v1`)."""

    def __init__(self, model: str, api_base: str, api_key: str, keep: Path) -> None:
        super().__init__(PROMPT, model, api_base, api_key, keep)

    def __call__(self, question: str) -> list[str]:
        return self.lines(question, question=question)


def fused(rankings: list[list[str]], weights: list[float] | list[int]) -> list[str]:
    score: dict[str, float] = defaultdict(float)
    for ranking, weight in zip(rankings, weights, strict=True):
        for place, memory in enumerate(ranking):
            score[memory] += weight / (RRF_K + place + 1)
    return sorted(score, key=lambda m: -score[m])


Rows = dict[str, dict[str, list[list[set[str]]]]]  # way -> conversation -> each question's top 10


def asked(bench: Bench, embedder: CachedEmbedder, guess: Guesser) -> Rows:
    """Loads the benchmark with metadata, then asks each question every way; per way and
    conversation, each question's top 10 (turn ids)."""
    app = flat_app(embedder, "memspace-guess-")
    run = int(time.time())
    answers: Rows = defaultdict(lambda: defaultdict(list))
    try:
        for c in bench.conversations:
            slug = f"guess-{c.name.replace(':', '-')}-{run}"
            who = keyed_space(app, slug)
            turns = saved_turns(app, who, slug, c)

            def search(text: str, who: Any = who, slug: str = slug) -> list[str]:
                return [h.memory.id for h in app.search.search(who, SearchRequest(
                    query=text, space=slug, include_profile=False, limit=DEPTH)).hits]

            for q in c.questions:
                guesses = guess(q["question"])
                alone = search(q["question"])
                joined = search("\n".join([q["question"], *guesses]))
                ways = {
                    "question alone": alone,
                    "question + guesses": joined,
                    "rrf(question, q+g)": fused([alone, joined], [1, 1]),
                    "rrf(2 question, each)": fused([alone, *map(search, guesses)],
                                                   [2] + [1] * len(guesses)),
                }
                for way, ranking in ways.items():
                    answers[way][c.name].append([turns[m] for m in ranking[:10]])
    finally:
        app.close()
    return answers


def multi_evidence(bench: Bench, rows: Rows) -> tuple[Bench, Rows]:
    """The benchmark and the rows restricted to questions with more than one evidence turn."""
    keep = {c.name: [len(set(q["evidence"])) > 1 for q in c.questions] for c in bench.conversations}
    conversations = [Conversation(c.name, c.turns, [q for q, k in zip(c.questions, keep[c.name],
                                                                      strict=True) if k])
                     for c in bench.conversations]
    kept = {way: {name: [f for f, k in zip(found, keep[name], strict=True) if k]
                  for name, found in per.items()} for way, per in rows.items()}
    return Bench(f"{bench.name} multi-evidence", conversations, bench.tune), kept


def model_arguments(parser: argparse.ArgumentParser, kept: str) -> None:
    """The benchmarks' and the model's options of a bench that keeps the model's answers in
    bench/results/<kept>/<name>.json (option --<kept>)."""
    parser.add_argument("--only", choices=("locomo", "chats"))
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--chats", type=Path, default=CHATS)
    parser.add_argument("--model", default="openai/local")
    parser.add_argument("--api-base", default="http://127.0.0.1:8091/v1")
    parser.add_argument("--api-key", default="local")
    parser.add_argument("--name", default="qwen2.5-coder-1.5b",
                        help="the model's name for its answers' file (default: what `make llm` serves)")
    parser.add_argument(f"--{kept}", type=Path,
                        help=f"the model's answers, kept (default bench/results/{kept}/<name>.json)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    model_arguments(parser, "guesses")
    args = parser.parse_args()
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    keep = args.guesses or ROOT / "bench" / "results" / "guesses" / f"{args.name}.json"
    guess = Guesser(args.model, args.api_base, args.api_key, keep)
    model = LOCAL_MODELS["e5-small-v2"]
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for bench in benches(args.only, args.locomo, args.chats):
        embedder = primed(bench, bench.vectors(LocalEmbedder(model), model.name))
        guess.asked, guess.seconds = 0, 0.0
        began = time.perf_counter()
        rows = asked(bench, embedder, guess)
        print(f"\n{bench.name}: {len(bench.conversations)} conversations, asked in "
              f"{time.perf_counter() - began:.0f} s; the model answered {guess.asked} new questions"
              + (f", {guess.seconds / guess.asked:.1f} s each" if guess.asked else ""))
        tables(bench, rows)
        tables(*multi_evidence(bench, rows))


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
