"""Which model a store embeds with (services/embedding_model.py): chosen once, then kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.ports import WriteBatch
from memspace.services.embedding_model import (
    E5_SMALL,
    KEY,
    LOCAL,
    MINILM,
    ModelMismatch,
    choose_model,
)
from memspace.stores.sqlite import SqliteStore
from tests.support import builders as b
from tests.support.fakes import HashEmbedder


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    made = SqliteStore(tmp_path / "memspace.db")
    yield made
    made.close()


def holding_a_memory(store: SqliteStore) -> SqliteStore:
    space = b.space()
    store.create_space(space)
    [vector] = HashEmbedder().embed(["x"])
    store.write(WriteBatch(space.id, [b.memory(space.id, "a memory", embedding=vector)]))
    return store


def test_a_new_store_takes_e5_when_installed_else_minilm_and_records_it(tmp_path: Path) -> None:
    for installed, want in ((True, E5_SMALL), (False, MINILM)):
        store = SqliteStore(tmp_path / f"{want}.db")
        assert choose_model(LOCAL, store, e5_installed=installed) == want
        assert store.store_info(KEY) == want
        store.close()


def test_the_recorded_model_is_kept_whatever_is_installed_now(store: SqliteStore) -> None:
    choose_model(LOCAL, store, e5_installed=False)
    assert choose_model(LOCAL, store, e5_installed=True) == MINILM
    assert choose_model(MINILM, store, e5_installed=True) == MINILM


def test_memories_stored_before_models_were_recorded_keep_minilm(store: SqliteStore) -> None:
    holding_a_memory(store)
    assert store.store_info(KEY) is None
    assert choose_model(LOCAL, store, e5_installed=True) == MINILM
    assert store.store_info(KEY) == MINILM


def test_naming_another_model_than_the_stores_refuses_with_what_to_do(store: SqliteStore) -> None:
    choose_model(LOCAL, store, e5_installed=True)
    with pytest.raises(ModelMismatch, match=r"embedded with e5-small-v2, not all-minilm-l6-v2.*Unset it"):
        choose_model(MINILM, store, e5_installed=True)
    with pytest.raises(ModelMismatch, match="memspace export"):
        choose_model("openai/text-embedding-3-small", store, e5_installed=True)
    assert store.store_info(KEY) == E5_SMALL  # nothing changed


def test_a_named_model_on_a_new_store_is_recorded(store: SqliteStore) -> None:
    assert choose_model("openai/text-embedding-3-small", store, e5_installed=True) == (
        "openai/text-embedding-3-small")
    assert choose_model(LOCAL, store, e5_installed=True) == "openai/text-embedding-3-small"


def test_the_local_models_are_the_ones_the_rule_names() -> None:
    from memspace.embeddings.local import LOCAL_MODELS

    assert set(LOCAL_MODELS) == {E5_SMALL, MINILM}
