"""Text rules shared by every store: normalisation, tokens, and the typo tolerance of `keyword`."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

import snowballstemmer

from memspace.domain.quoting import label

_WORD = re.compile(r"\w+", re.UNICODE)


def counted(count: int, one: str, many: str | None = None) -> str:
    """A count with its noun in the right number: counted(1, "memory", "memories") is
    "1 memory", counted(3, "result") is "3 results"."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def kind_label(kind: str, category: str) -> str:
    """How a memory's type and category read beside its id: the category alone for a plain note,
    the type alone when the category repeats it, else both ("decision, billing")."""
    shown = label(category)
    return shown if kind in ("note", category) else f"{kind}, {shown}"


def normalise(content: str) -> str:
    """Case-folded, NFKC, whitespace collapsed: two contents with this equal are the same fact."""
    return " ".join(unicodedata.normalize("NFKC", content).casefold().split())


# Characters that show nothing: controls, format characters (zero-width space and joiners,
# bidi marks, soft hyphen, BOM) and lone surrogates. Whitespace is tested separately.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs"})


def visible(content: str) -> bool:
    """Does the text show anything? "\u200b\u200b" and "\u00ad \ufeff" do not."""
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE for ch in content)


def content_hash(content: str) -> str:
    return hashlib.sha256(normalise(content).encode("utf-8")).hexdigest()


def word_tokens(text: str) -> list[str]:
    """Lower-cased word tokens, in order, repeats kept (what the keyword index counts)."""
    return _WORD.findall(normalise(text))


def words(text: str) -> list[str]:
    """Lower-cased word tokens, in order, without duplicates."""
    return list(dict.fromkeys(word_tokens(text)))


# Function words left out of the ranked index and of queries (domain.text.terms): they match
# nearly every memory, add nothing to BM25 (their IDF is ~0) and make the ranking scan every
# row — at 10,000 memories "who deploys the billing queue?" took 22 ms with them, 9 without.
STOP_WORDS = frozenset(
    "a an and are as at be but by do does did for from had has have how i if in into is it its "
    "me my no not of on or our so that the their them there these they this to was we were "
    "what when where which who whom why will with you your".split()
)


# -- the ranked full-text index (hybrid search) --------------------------------------------
#
# Both stores index the same *terms*, made here, so that SQLite's FTS5 and Neo4j's Lucene rank
# the same words (each store's own English analysis differs: FTS5 `porter` is Porter 1, Lucene's
# EnglishAnalyzer adds possessive and stop filters of its own). A term is a word, case-folded,
# stop words dropped, reduced to its Snowball (Porter2) English stem: "researched",
# "researching" and "research" are one term, as are "painting"/"paintings".
# Measured with bench/recall_locomo.py (flat, MiniLM): full-text R@10 0.62 -> 0.67 with stems.

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def terms(text: str) -> list[str]:
    """The index terms of a text, in order, repeats kept (term frequency counts in BM25)."""
    return [_stem(w) for w in _WORD.findall(normalise(text)) if w not in STOP_WORDS]


def index_terms(content: str, context: str | None = None) -> str:
    """What the ranked full-text index holds for a memory: its terms, then its context's.

    `context` is the text a memory is read with (`context_of` in services/memories/conversation.py:
    the turn before it in a conversation); it is indexed but never shown as the memory's content.
    """
    return " ".join(terms(content) + (terms(context) if context else []))


def query_terms(text: str) -> list[str]:
    """The distinct terms of a natural-language query; all its words stemmed if it is only
    stop words (a query "who is it" still finds something)."""
    found = terms(text) or [_stem(w) for w in _WORD.findall(normalise(text))]
    return list(dict.fromkeys(found))


def max_edits(term: str) -> int:
    """How many edits (insert, delete, substitute, transpose) a keyword term tolerates.

    Short words get none: at four letters one edit already turns `plan` into `plant`, `cat`
    into `cart`, so a typo-tolerant match there is mostly noise. Five to seven letters tolerate
    one edit (`shcema` -> `schema`); eight and more tolerate two (`migraiton` -> `migration`
    is one transposition). These are Lucene's fuzzy-query bounds (AUTO:5,8 in Elasticsearch
    terms), which is what the Neo4j store runs natively; the SQLite store applies the same rule
    with a Damerau-Levenshtein scan of its vocabulary. Both stores then keep only words that
    pass `tolerated`, which takes the budget of the shorter word so the rule is symmetric.
    """
    return _edits_for_length(len(term))


def tolerated(term: str, candidate: str) -> bool:
    """Does a stored word `candidate` match the keyword `term` under the typo rule?

    The budget comes from the *shorter* of the two words, so the rule is symmetric: `plan`
    never matches `plant` and `plant` never matches `plan`, while `migraiton` matches
    `migration`.
    """
    if term == candidate:
        return True
    budget = _edits_for_length(min(len(term), len(candidate)))
    if budget == 0 or abs(len(term) - len(candidate)) > budget:
        return False
    return osa_distance(term, candidate) <= budget


def osa_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, transpositions."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def _edits_for_length(length: int) -> int:
    if length <= 4:
        return 0
    if length <= 7:
        return 1
    return 2
