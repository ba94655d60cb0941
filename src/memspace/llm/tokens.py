"""Counting tokens offline: OpenAI's cl100k_base through tiktoken, from the copy litellm ships.

tiktoken downloads its BPE files on first use unless TIKTOKEN_CACHE_DIR points at a copy;
litellm carries one (litellm_core_utils/tokenizers), so no network is needed. If that copy is
missing the counter falls back to an estimate of 3 characters per token. Measured with cl100k:
4.2 characters per token on the prose of bench/data/extraction_cases.jsonl, 3.1 on the
number-heavy sentences of bench/bench_service.py; 3 keeps a budget from overflowing on both.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 3.0


class TokenCounter:
    """`count(text)`: cl100k_base tokens, or ceil(len/3) when the encoding is unavailable."""

    def __init__(self) -> None:
        self._encoding: Any = None
        self._tried = False
        self._lock = threading.Lock()

    @property
    def exact(self) -> bool:
        return self._load() is not None

    def _load(self) -> Any:
        with self._lock:
            if not self._tried:
                self._tried = True
                try:
                    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                    import litellm.litellm_core_utils.tokenizers as bundled

                    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(Path(bundled.__file__).parent))
                    import tiktoken

                    self._encoding = tiktoken.get_encoding("cl100k_base")
                except Exception:  # no bundled copy, no network: estimate instead
                    self._encoding = None
            return self._encoding

    def count(self, text: str) -> int:
        encoding = self._load()
        if encoding is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        return len(encoding.encode(text, disallowed_special=()))
