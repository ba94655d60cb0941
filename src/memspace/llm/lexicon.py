"""Terms for the grounding guard (grounding.py, polarity.py): what words of two texts match.

Words are case-folded and Snowball-stemmed, function words left out; numbers and times ("02:00",
"1,200") are one term; "one".."twelve" count as digits; a term matches another that it starts
(≥ 3 characters: "prod" ~ "production"); a few short forms a model spells out are expanded.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from memspace.domain.text import STOP_WORDS, normalise

# A token: an ISO date, a number with its separators ("02:00", "1,200", "3.11"), a word, or
# punctuation.
TOKEN = re.compile(r"\d{4}-\d{2}-\d{2}|\d+(?:[:.,]\d+)+|\w+(?:['’]\w+)?|[.,;:!?()]")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
# Words that carry no claim of their own: resolving "we" gives "the team", "now" is a tense.
FILLER = frozenset(
    "now also still just currently team new can could must should would may might been being "
    "going go get got gets able longer yet anymore ever already after all per over than via "
    "about instead rather".split())
# Short forms a model spells out ("PRs" -> "pull requests"); prefixes ("prod") need no entry.
ABBREVIATIONS = {"pr": ("pull", "request"), "db": ("databas",), "k8s": ("kubernet",)}

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    ordinal = _ORDINAL.match(word)
    if ordinal:
        return ordinal.group(1).lstrip("0") or "0"
    if word[:1].isdigit():
        return word.lstrip("0") or "0"
    stemmed = str(_STEMMER.stemWord(word.replace("’", "'").split("'")[0]))
    return stemmed[:-1] if stemmed.endswith("s") and stemmed[:-1] in ABBREVIATIONS else stemmed


def tokens(text: str) -> list[str]:
    """Case-folded tokens, punctuation kept (clause boundaries for polarity.py)."""
    return TOKEN.findall(normalise(text))


def terms(text: str) -> set[str]:
    """The claim-bearing terms of a text: stems of its words without function words."""
    found: set[str] = set()
    for token in tokens(text):
        if not token[0].isalnum() or token in STOP_WORDS or token in FILLER:
            continue
        term = stem(token)
        found.add(term)
        found.update(ABBREVIATIONS.get(term, ()))
    return found - {stem(w) for w in FILLER}


def supported(term: str, pool: set[str]) -> bool:
    if term in pool:
        return True
    if len(term) < 3 or term[0].isdigit():
        return False
    return any(len(other) >= 3 and not other[0].isdigit()
               and (term.startswith(other) or other.startswith(term)) for other in pool)


def share(fact_terms: set[str], pool: set[str]) -> float:
    return sum(supported(t, pool) for t in fact_terms) / len(fact_terms) if fact_terms else 1.0
