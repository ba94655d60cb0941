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
    model_for,
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
    store.directory.create_space(space)
    [vector] = HashEmbedder().embed(["x"])
    store.writes.write(WriteBatch(space.id, [b.memory(space.id, "a memory", embedding=vector)]))
    return store


def test_a_new_store_takes_e5_and_records_it(store: SqliteStore) -> None:
    """Installed or not: a missing model stops the server (cli serve), it never pins the store
    to another one."""
    assert choose_model(LOCAL, store) == E5_SMALL
    assert store.store_info(KEY) == E5_SMALL


def test_the_recorded_model_is_kept(store: SqliteStore) -> None:
    assert choose_model(MINILM, store) == MINILM
    assert choose_model(LOCAL, store) == MINILM
    assert choose_model(MINILM, store) == MINILM


def test_model_for_answers_without_recording(store: SqliteStore) -> None:
    assert model_for(LOCAL, store) == E5_SMALL
    assert store.store_info(KEY) is None
    holding_a_memory(store)
    assert model_for(LOCAL, store) == MINILM
    assert store.store_info(KEY) is None


def test_memories_stored_before_models_were_recorded_keep_minilm(store: SqliteStore) -> None:
    holding_a_memory(store)
    assert store.store_info(KEY) is None
    assert choose_model(LOCAL, store) == MINILM
    assert store.store_info(KEY) == MINILM


def test_naming_another_model_than_the_stores_refuses_with_what_to_do(store: SqliteStore) -> None:
    choose_model(LOCAL, store)
    with pytest.raises(ModelMismatch, match=r"embedded with e5-small-v2, not all-minilm-l6-v2.*Unset it"):
        choose_model(MINILM, store)
    with pytest.raises(ModelMismatch, match="memspace export"):
        choose_model("openai/text-embedding-3-small", store)
    assert store.store_info(KEY) == E5_SMALL  # nothing changed


def test_a_named_model_on_a_new_store_is_recorded(store: SqliteStore) -> None:
    assert choose_model("openai/text-embedding-3-small", store) == (
        "openai/text-embedding-3-small")
    assert choose_model(LOCAL, store) == "openai/text-embedding-3-small"


def test_the_local_models_are_the_ones_the_rule_names() -> None:
    from memspace.embeddings.local import LOCAL_MODELS

    assert set(LOCAL_MODELS) == {E5_SMALL, MINILM}
