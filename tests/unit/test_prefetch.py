"""The prefetching embedder answers prefetched texts from its batch, and only those."""

from __future__ import annotations

from memspace.embeddings.prefetch import PrefetchingEmbedder
from tests.support.fakes import HashEmbedder


def test_prefetched_texts_are_embedded_once_in_one_batch() -> None:
    inner = HashEmbedder()
    embedder = PrefetchingEmbedder(inner)
    embedder.prefetch(["first chunk", "second chunk", "first chunk"])
    assert inner.calls == 1
    assert embedder.embed(["second chunk"]) == inner.embed(["second chunk"])
    assert embedder.embed(["first chunk"]) == inner.embed(["first chunk"])
    assert inner.calls == 3  # only the two reference calls above


def test_a_text_not_prefetched_is_embedded_on_demand_and_order_is_kept() -> None:
    inner = HashEmbedder()
    embedder = PrefetchingEmbedder(inner)
    embedder.prefetch(["known"])
    got = embedder.embed(["new one", "known", "new one"])
    assert got == inner.embed(["new one", "known", "new one"])


def test_the_oldest_prefetched_texts_are_dropped_beyond_capacity() -> None:
    inner = HashEmbedder()
    embedder = PrefetchingEmbedder(inner, capacity=2)
    embedder.prefetch(["a1", "b2", "c3"])
    calls = inner.calls
    embedder.embed(["b2", "c3"])
    assert inner.calls == calls
    embedder.embed(["a1"])
    assert inner.calls == calls + 1
