"""Any local sentence-transformers model: `MEMSPACE_EMBEDDING_MODEL=sentence-transformers:<path or name>`.

The optional extra `pip install 'memspace[sentence-transformers]'` brings the library (and
PyTorch, a few GB), which the default install never has. The model is read from a folder, or by
name from the local Hugging Face cache only: the hub is switched off before the library is
imported, so nothing is downloaded at run time. A store records the whole setting as its model
(services/embedding_model.py), like any other.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import Any

from memspace.domain.embedder import MINILM_CALIBRATION, Calibration
from memspace.domain.errors import Unavailable

PREFIX = "sentence-transformers:"
EXTRA = "pip install 'memspace[sentence-transformers]'"


class MissingExtra(ValueError):
    """The setting names a sentence-transformers model and the library is not installed."""


class SentenceTransformersEmbedder:
    """One sentence-transformers model on CPU, loaded on first use."""

    def __init__(self, setting: str, batch_size: int = 64) -> None:
        if not setting.startswith(PREFIX) or not setting[len(PREFIX):].strip():
            raise ValueError(f"MEMSPACE_EMBEDDING_MODEL={setting!r}: write {PREFIX}<path or name>, "
                             f"e.g. {PREFIX}/models/all-MiniLM-L6-v2")
        if importlib.util.find_spec("sentence_transformers") is None:
            raise MissingExtra(f"MEMSPACE_EMBEDDING_MODEL={setting} needs the sentence-transformers "
                               f"extra, which is not installed: run `{EXTRA}` (it brings PyTorch), "
                               "or unset MEMSPACE_EMBEDDING_MODEL to use the built-in e5-small-v2")
        self.name = setting
        self._source = setting[len(PREFIX):].strip()
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return int(self._load().get_sentence_embedding_dimension())

    @property
    def calibration(self) -> Calibration:
        """MiniLM's figures: an arbitrary model is not measured here (bench/similar_pairs.py)."""
        return MINILM_CALIBRATION

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a folder or the local cache only
                try:
                    from sentence_transformers import SentenceTransformer

                    self._model = SentenceTransformer(self._source, device="cpu")
                except Exception as exc:  # missing folder, not in the local cache, bad files
                    raise Unavailable(
                        f"the sentence-transformers model {self._source!r} could not be loaded "
                        f"({exc}); give the path of a folder holding it (nothing is downloaded)"
                    ) from exc
            return self._model

    def warm_up(self) -> None:
        self.embed(["warm up"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(list(texts), batch_size=self._batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=False)
        return [[float(x) for x in row] for row in vectors]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed(texts)
