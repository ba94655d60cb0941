"""Any litellm embedding model (OpenAI, Ollama, vLLM, …) behind the Embedder port."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from memspace.domain.embedder import MINILM_CALIBRATION, Calibration
from memspace.domain.errors import Unavailable

# Remote APIs cap a request's inputs (OpenAI: 2,048); 128 keeps each request small and fast.
BATCH_SIZE = 128


class LitellmEmbedder:
    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout_s: float = 30.0) -> None:
        self._model = self.name = model
        self._api_base = api_base
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._dimensions: int | None = None

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self.embed(["dimension probe"])
        assert self._dimensions is not None
        return self._dimensions

    @property
    def calibration(self) -> Calibration:
        """MiniLM's figures: a remote model is not measured here (bench/similar_pairs.py)."""
        return MINILM_CALIBRATION

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed(texts)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        # litellm fetches a remote price list at import unless told not to (docs/operations.md).
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            try:
                response = litellm.embedding(
                    model=self._model, input=list(texts[start:start + BATCH_SIZE]),
                    api_base=self._api_base, api_key=self._api_key, timeout=self._timeout_s,
                )
            except Exception as exc:  # litellm maps every provider failure to its own types
                raise Unavailable(f"embedding model {self._model} failed: {exc}") from exc
            for item in response.data:
                raw = item["embedding"] if isinstance(item, dict) else item.embedding
                norm = math.sqrt(sum(x * x for x in raw)) or 1.0
                vectors.append([x / norm for x in raw])
        self._dimensions = len(vectors[0])
        return vectors
