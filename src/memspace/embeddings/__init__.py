"""Embedders: e5-small-v2 by default (int8 ONNX, offline), MiniLM for stores whose vectors were
made with it (both `local.py`, fetched by `fetch.py`), a sentence-transformers model through the
optional extra (`sbert.py`) and any litellm embedding model (`remote.py`). Which one a store
uses is chosen once and kept: services/embedding_model.py."""
