"""The litellm-backed fact extractor and the prompt files it renders (DESIGN §3)."""

from memspace.llm.extractor import LitellmExtractor

__all__ = ["LitellmExtractor"]
