"""Embedders: the local MiniLM model (default, offline) and any litellm embedding model."""
