"""Questions a language model writes for each turn when it is saved, searched with the turns, on
the conversation benchmarks of recall_conversations.py (saved with metadata, the default
features). Prints; asserts nothing.

For each turn the local model writes three questions the turn answers (prompt
`turn_questions.v1`, temperature 0; "document expansion by query prediction", doc2query), and
they are searched with it. A question found counts as the turn it was written for. The ways:

  turns                     search_memory over the turns as they are (the baseline)
  turns + questions         each turn saved as its text followed by its questions (what an
                            index reading both would see; the product never changes a content)
  rrf(turns, questions)     the turns' ranking fused by reciprocal rank (k = 60) with a search
                            of the questions alone, each hit read as its turn
  one space                 turns and questions in one space (the questions saved by a second
                            key, with the turn's time), each question hit read as its turn

A measurement of a write-time expansion for the multi-evidence gap (issue 41,
docs/conversations.md): the model is asked once per turn when it is saved, never per search.

The model's questions are kept in a JSON file (turn key -> text; --questions, default
bench/results/questions/<--name>.json), so a rerun without the model gives the same figures.

Usage: recall_questions.py [--only locomo|chats] [--conversations 26,30] [--model openai/local]
                           [--api-base http://127.0.0.1:8091/v1] [--name qwen2.5-coder-1.5b]
                           [--questions FILE]
(`make llm` serves the pinned local model at that address.)
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_conversations import Bench, flat_app, saved_turns
from recall_facts import Rows, first_turns, run, saved_writings, searcher, spaces
from recall_guesses import Kept, fused
from recall_locomo import CachedEmbedder, Conversation

PROMPT = "turn_questions.v1"


def asked(bench: Bench, embedder: CachedEmbedder, written: Kept) -> Rows:
    """Loads each conversation's turns with metadata, with their questions appended, the
    questions apart and turns and questions together, then asks each benchmark question every
    way; per way and conversation, each question's top 10 (turn ids)."""
    app = flat_app(embedder, "memspace-questions-")
    stamp = int(time.time())
    answers: Rows = defaultdict(lambda: defaultdict(list))
    try:
        for c in bench.conversations:
            slugs, who, writer = spaces(app, f"questions-{c.name}-{stamp}",
                                        ("turns", "appended", "questions", "both"))
            per_turn = {t.dia_id: written.lines(
                f"{bench.name}:{c.name}:{t.dia_id}", speaker=t.speaker,
                observed_at=t.observed_at.date().isoformat() if t.observed_at else "an unknown day",
                content=t.content) for t in c.turns}
            appended = Conversation(c.name, [dataclasses.replace(
                t, content="\n".join([t.content, *per_turn[t.dia_id]])) for t in c.turns], c.questions)
            turns = saved_turns(app, who, slugs["turns"], c)  # memory id -> turn ids
            turns |= saved_turns(app, who, slugs["both"], c)
            turns |= saved_turns(app, who, slugs["appended"], appended)
            saved_writings(app, writer, [slugs["questions"], slugs["both"]], c, per_turn, turns)
            search = searcher(app, who, slugs)

            for q in c.questions:
                alone = search(q["question"], "turns")
                ways = {"turns": alone, "turns + questions": search(q["question"], "appended"),
                        "rrf(turns, questions)": fused([alone, search(q["question"], "questions")], [1, 1]),
                        "one space": search(q["question"], "both")}
                for way, ranking in ways.items():
                    answers[way][c.name].append(first_turns(ranking, turns))
    finally:
        app.close()
    return answers


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    run(__doc__, "questions", lambda args, keep: Kept(PROMPT, args.model, args.api_base, args.api_key, keep),
        asked)
