"""A BERT sentence encoder exported to ONNX (e5-small-v2, all-MiniLM-L6-v2), run by onnxruntime.

The model file holds the whole network up to its last hidden states; mean pooling over the
tokens and unit length are done here, as the models' cards say (e5: "average_pool";
MiniLM: sentence-transformers' mean pooling, then normalisation).

Each text goes through the network alone. The int8 build quantises its activations per tensor
at run time (DynamicQuantizeLinear), from the range of the whole batch: batched with a long text,
a query's vector moved by up to 0.015 in a component (cosine 0.997 to itself alone), so one text
had several vectors, and a search's depended on the searches that shared its pass. Alone, a text
has one vector. Texts of one call are spread over worker threads instead (one onnxruntime thread
each). A pass costs about linearly in tokens: on the 2-core test machine (2.0 GHz, AVX2, no
VNNI) a query of 6 tokens 9.7 ms, of 18 tokens 25.5 ms, of 31 tokens 42 ms, all CPU; 512
conversation turns (~38 tokens) 19/s on one thread, 37/s on two (bench/encoder_cost.py). On a
busy machine that is the floor of every search's and add's CPU. The float32 MiniLM has no such
quantisation; it runs the same way, at about half the cost (6 layers to e5-small's 12).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np


class OnnxEncoder:
    """Tokenizer and onnxruntime session of one model folder (model.onnx, tokenizer.json)."""

    def __init__(self, folder: Path, max_tokens: int = 512, workers: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.max_tokens = max_tokens
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_tokens)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # parallel over texts instead (workers)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused initialisers are not ours
        self._session: Any = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self._types = "token_type_ids" in {i.name for i in self._session.get_inputs()}
        self.dimensions = int(self._session.get_outputs()[0].shape[-1])
        self._workers = max(1, workers if workers is not None else min(os.cpu_count() or 1, 4))
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def encode(self, texts: Sequence[str], batch_size: int = 1) -> list[list[float]]:
        """Unit vectors, one per text, in the order given (`batch_size` is not used: each text
        is its own pass, see the module docstring)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        if len(encodings) == 1 or self._workers == 1:
            return [self._one(e.ids) for e in encodings]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="embed")
            pool = self._pool
        return list(pool.map(lambda e: self._one(e.ids), encodings))

    def hidden(self, ids: list[int]) -> Any:
        """The last hidden states of one text's tokens (tokens x dimensions)."""
        tokens = np.asarray([ids], dtype=np.int64)
        feeds = {"input_ids": tokens, "attention_mask": np.ones_like(tokens)}
        if self._types:
            feeds["token_type_ids"] = np.zeros_like(tokens)
        return self._session.run(None, feeds)[0][0]

    def _one(self, ids: list[int]) -> list[float]:
        pooled = self.hidden(ids).mean(axis=0)
        pooled /= max(float(np.linalg.norm(pooled)), 1e-12)
        vector: list[float] = pooled.tolist()
        return vector
