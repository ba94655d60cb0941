"""Recall on the two conversation benchmarks of recall_conversations.py when each turn's vector
also reads the turns around it: the vector stored for a turn is the normalised sum of its own
and that of a window of text, and queries are embedded as they are. Prints; asserts nothing.

  own    each turn's own vector (the search as it is)
  prev   the window is the turn before (same session) and the turn: known when the turn is
         saved
  both   the turn before, the turn and the turn after: the turn's vector would have to be
         written again when the next one arrives

Tried for issue 41 (multi-evidence questions: docs/conversations.md). The benchmark's sessions
bound the windows here; a store would use its `follows` links. The windows' vectors are cached
in ~/.cache/memspace/windows-e5-small-v2-vectors.json.

Usage: window_vectors.py [--modes own,prev,both] [--only locomo|chats]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import recall_conversations as conversations
from recall_locomo import CACHE, CachedEmbedder, Conversation


def windows(conversation: Conversation, mode: str) -> dict[str, str]:
    """A turn's content -> the text of its window."""
    out = {}
    turns = conversation.turns
    for i, turn in enumerate(turns):
        before = turns[i - 1] if i and turns[i - 1].session == turn.session else None
        after = turns[i + 1] if i + 1 < len(turns) and turns[i + 1].session == turn.session else None
        parts = [before, turn] + ([after] if mode == "both" else [])
        if mode != "own" and len([p for p in parts if p is not None]) > 1:
            out[turn.content] = "\n".join(p.content for p in parts if p is not None)
    return out


class Windowed:
    """An embedder whose passages are the normalised sum of their own vector and their
    window's; queries pass through."""

    def __init__(self, inner: CachedEmbedder, window: CachedEmbedder, texts: dict[str, str]):
        self._inner, self._window, self._texts = inner, window, texts

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    @property
    def calibration(self) -> Any:
        return self._inner.calibration

    def embed(self, texts: list[str]) -> list[Any]:
        out = []
        for text, vector in zip(texts, self._inner.embed(texts), strict=True):
            if text not in self._texts:
                out.append(vector)
                continue
            own = np.asarray(vector, dtype=np.float32)
            [around] = self._window.embed([self._texts[text]])
            window = np.asarray(around, dtype=np.float32)
            summed = own / np.linalg.norm(own) + window / np.linalg.norm(window)
            out.append(list(summed / np.linalg.norm(summed)))
        return out

    def embed_queries(self, texts: list[str]) -> list[Any]:
        return self._inner.embed_queries(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default="own,prev,both")
    parser.add_argument("--only", choices=("locomo", "chats"))
    args = parser.parse_args()
    from memspace.embeddings.local import LOCAL_MODELS, LocalEmbedder

    model = LOCAL_MODELS["e5-small-v2"]
    window = CachedEmbedder(LocalEmbedder(model), CACHE / f"windows-{model.name}-vectors.json")
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    for bench in conversations.benches(args.only):
        inner = bench.vectors(LocalEmbedder(model), model.name)
        for mode in args.modes.split(","):
            texts = {k: v for c in bench.conversations for k, v in windows(c, mode).items()}
            window.prime(list(texts.values()))
            window.save()
            rows = conversations.run(bench, Windowed(inner, window, texts), False)
            print(f"\n== {bench.name}, window: {mode}")
            conversations.tables(bench, rows)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
