"""Which embedding model a store's vectors are made with: chosen once, then kept.

Vectors of two models cannot be compared, so a store records the model of its first start
(`embedding_model` in its store info) and every later start embeds with it:

- `MEMSPACE_EMBEDDING_MODEL=local` (the default) means the store's own model. A new store takes
  e5-small-v2, whether or not it is installed yet: a server whose model is missing refuses to
  start and says what to run (`make install`: embeddings/fetch.py), so a store is never pinned
  to a weaker model because a download had not happened. A store that holds memories but no
  record was written before models were recorded, by all-MiniLM-L6-v2: it keeps that model, so
  an upgrade never mixes vectors.
- Any other value names the model (a local one, `sentence-transformers:<path or name>`, or a
  litellm model); a store recorded with another one refuses to start, with what to do.
"""

from __future__ import annotations

from memspace.domain.graph_port import GraphStore

LOCAL = "local"
E5_SMALL = "e5-small-v2"
MINILM = "all-minilm-l6-v2"
# Every store written before the model was recorded used this one.
BEFORE_RECORDS = MINILM
KEY = "embedding_model"


class ModelMismatch(ValueError):
    """The configured model is not the one the store's vectors were made with."""


def choose_model(configured: str, store: GraphStore) -> str:
    """The model this process embeds with; records it when the store had no record."""
    chosen = model_for(configured, store)
    if store.store_info(KEY) != chosen:
        store.set_store_info(KEY, chosen)
    return chosen


def model_for(configured: str, store: GraphStore) -> str:
    """The model a process on this store would embed with, recording nothing (`doctor`)."""
    stored = store.store_info(KEY)
    recorded = BEFORE_RECORDS if stored is None and store.holds_memories() else stored
    if configured == LOCAL:
        return recorded or E5_SMALL
    if recorded is not None and recorded != configured:
        raise ModelMismatch(
            f"this store's memories were embedded with {recorded}, not {configured} "
            f"(MEMSPACE_EMBEDDING_MODEL): vectors of two models cannot be compared. Unset it "
            f"(or set it to {recorded}) to keep the store's model, or export the spaces "
            f"(`memspace export`) and import them into a new store, which embeds them again")
    return configured
