"""The litellm-backed fact extractor and the prompt files it renders (docs/contract.md)."""

from memspace.llm.extractor import LitellmExtractor

__all__ = ["LitellmExtractor"]
