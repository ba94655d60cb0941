"""Text rules shared by every store: normalisation, tokens, and the typo tolerance of `keyword`."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WORD = re.compile(r"\w+", re.UNICODE)


def normalise(content: str) -> str:
    """Case-folded, NFKC, whitespace collapsed: two contents with this equal are the same fact."""
    return " ".join(unicodedata.normalize("NFKC", content).casefold().split())


def content_hash(content: str) -> str:
    return hashlib.sha256(normalise(content).encode("utf-8")).hexdigest()


def words(text: str) -> list[str]:
    """Lower-cased word tokens, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(normalise(text)):
        seen.setdefault(match.group(0), None)
    return list(seen)


def max_edits(term: str) -> int:
    """How many edits (insert, delete, substitute, transpose) a keyword term tolerates.

    Short words get none: at four letters one edit already turns `plan` into `plant`, `cat`
    into `cart`, so a typo-tolerant match there is mostly noise. Five to seven letters tolerate
    one edit (`shcema` -> `schema`); eight and more tolerate two (`migraiton` -> `migration`
    is one transposition). These are Lucene's fuzzy-query bounds (AUTO:5,8 in Elasticsearch
    terms), which is what the Neo4j store runs natively; the SQLite store applies the same rule
    with a Damerau-Levenshtein scan of its vocabulary, so both stores answer alike.
    """
    length = len(term)
    if length <= 4:
        return 0
    if length <= 7:
        return 1
    return 2
