"""The local embedding models, loaded by path, once, on first use; nothing is fetched at run time.

Both run as ONNX in onnxruntime (embeddings/onnx_encoder.py) and are installed from Maven
Central by `python -m memspace.embeddings.fetch` (embeddings/fetch.py); no PyTorch.

- **e5-small-v2** (int8), the default: `make install` fetches it. It reads a query and a stored
  text with different prefixes ("query: ", "passage: "), as it was trained. On LoCoMo
  (bench/recall_locomo.py) its vector list alone finds R@10 0.731 of the questions' evidence
  against MiniLM's 0.516. A query costs ~10-45 ms of CPU by its length on the 2-core test
  machine, about twice MiniLM's (bench/encoder_cost.py).
- **all-MiniLM-L6-v2** (float32), the model of stores made before e5 or on a machine without it.
  Its ONNX export gives the vectors those stores hold (within 3e-7 of the earlier runtime's on
  the texts of tests/integration/test_local_embedder.py), so they keep working unchanged.
  Installed on demand: `python -m memspace.embeddings.fetch all-minilm-l6-v2`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memspace.domain.embedder import MINILM_CALIBRATION, Calibration
from memspace.domain.errors import Unavailable
from memspace.embeddings import fetch
from memspace.runtime.coalesce import Coalescer
from memspace.runtime.heap import lean_heap, release_freed_memory

if TYPE_CHECKING:
    from memspace.embeddings.onnx_encoder import OnnxEncoder

DIMENSIONS = 384
# Texts per encode call of a large embed (a document, a bulk load); each text is its own pass.
BATCH_SIZE = 256
# Calls of up to this many texts (a query, a note's facts) share forward passes with the calls
# waiting beside them (memspace/runtime/coalesce.py); larger ones (a document, a bulk load) run on
# their own, so a search arriving during an import does not wait for all of it.
COALESCE_UP_TO = 32


# After a call of at least this many characters (~500 tokens), the heap pages its activations
# freed go back to the system (malloc_trim). glibc keeps freed pages for reuse, so the largest
# call so far set the process's RSS for good: +200 MB anonymous after 600 mixed texts, back to
# +10 MB above the loaded model by one trim of 32 ms. Measured per call on 2 cores: 256 short
# facts +73 MB, trimmed in 8.5 ms; 16 document chunks +37 MB, 5.4 ms; 50 single queries one by
# one +12 MB. Below the threshold the embedding is short too, and the pages are reused by the
# next call.
TRIM_AFTER_CHARS = 2048


@dataclass(frozen=True)
class LocalModel:
    name: str  # as MEMSPACE_EMBEDDING_MODEL names it, and as a store records it
    query_prefix: str
    passage_prefix: str
    calibration: Calibration
    files: fetch.Pinned  # where its files come from, and the folder they are installed in
    max_tokens: int  # its window: later tokens are not read

    def folder(self, root: Path | None = None) -> Path | None:
        """The installed folder, or None when the model has not been fetched."""
        return fetch.installed(self.files, root)

    def missing(self, root: Path | None = None) -> str:
        """What to tell someone whose store needs this model and who has not installed it."""
        where = (root or fetch.models_dir()) / self.files.folder
        return (f"the embedding model {self.name} is not installed ({where} is missing): run "
                f"`{fetch.command(self.name)}` (`make install` installs e5-small-v2), or set "
                "MEMSPACE_MODELS_DIR to the folder that holds it")


# Measured with bench/similar_pairs.py (int8 e5): a fact and the fact that replaces it 0.86-0.94,
# related facts on one subject 0.80-0.84, unrelated facts 0.75-0.82 ("Our standup is at 9:30" /
# "Lunch is at noon" 0.82). 0.84 refuses every unrelated pair and keeps every replacement.
E5_SMALL = LocalModel("e5-small-v2", "query: ", "passage: ",
                      Calibration(update_floor=0.84, similar_on_save=0.84),
                      fetch.E5_SMALL_V2_Q, max_tokens=512)
# sentence-transformers read 256 tokens of each text with this model (its max_seq_length).
MINILM = LocalModel("all-minilm-l6-v2", "", "", MINILM_CALIBRATION, fetch.ALL_MINILM_L6_V2,
                    max_tokens=256)
LOCAL_MODELS = {model.name: model for model in (E5_SMALL, MINILM)}


class LocalEmbedder:
    """A local model on CPU, loaded lazily, once (e5: 0.2 s for 34 MB; MiniLM: 0.3 s for 87 MB)."""

    def __init__(self, model: LocalModel = E5_SMALL, model_path: str | None = None,
                 batch_size: int = BATCH_SIZE, models_dir: Path | None = None) -> None:
        self.model = model
        self._model_path = model_path
        self._root = models_dir  # None: fetch.models_dir()
        self._batch_size = batch_size
        self._model: OnnxEncoder | None = None
        self._lock = threading.Lock()
        self._together: Coalescer[Sequence[str], list[list[float]]] = Coalescer(self._encode_calls)

    @property
    def dimensions(self) -> int:
        return DIMENSIONS if self._model is None else self._model.dimensions

    @property
    def calibration(self) -> Calibration:
        return self.model.calibration

    def missing(self) -> str | None:
        """None when the model's files are in place; else what to run to install them."""
        if self._model is not None or self._model_path is not None:
            return None
        return None if self.model.folder(self._root) is not None else self.model.missing(self._root)

    @property
    def location(self) -> str:
        """The model file this embedder reads (or would read, once installed)."""
        folder = (Path(self._model_path) if self._model_path is not None
                  else (self._root or fetch.models_dir()) / self.model.files.folder)
        return str(folder / "model.onnx")

    def _load(self) -> OnnxEncoder:
        with self._lock:
            if self._model is None:
                lean_heap()
                if (problem := self.missing()) is not None:
                    raise Unavailable(problem)
                try:
                    self._model = self._open()
                except Exception as exc:  # import errors, corrupt files
                    raise Unavailable(
                        f"the local embedding model {self.model.name} could not be loaded "
                        f"({exc}); reinstall it with `{fetch.command(self.model.name)}`, or set "
                        "MEMSPACE_EMBEDDING_MODEL to a litellm model"
                    ) from exc
            return self._model

    def _open(self) -> OnnxEncoder:
        from memspace.embeddings.onnx_encoder import OnnxEncoder

        folder = (Path(self._model_path) if self._model_path is not None
                  else self.model.folder(self._root))
        assert folder is not None  # missing() said it is installed
        return OnnxEncoder(folder, max_tokens=self.model.max_tokens)

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
        return self._embed([self.model.passage_prefix + text for text in texts])

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed([self.model.query_prefix + text for text in texts])

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if len(texts) <= COALESCE_UP_TO:
            vectors = self._together(texts)
        else:
            vectors = self._load().encode(texts, self._batch_size)
        if sum(len(text) for text in texts) >= TRIM_AFTER_CHARS:
            release_freed_memory()
        return vectors
