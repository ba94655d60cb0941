"""Searches of a space the vector cache does not hold (a cold space), scored while its rows
stream past in chunks, none of them kept: what a replica does instead of loading the space
inside the request (services/search/search.py picks the path; the space is loaded in the background).

The rows are the ones the cache would read (stores/vector_cache.py Row, plus `active`), read
through the store's index on the space in chunks of CHUNK_ROWS. Scoring is the cache's own:
exact cosines of the float32 vectors, and BM25 over the index terms with the space's own
statistics (stores/term_index.py: k1 1.2, b 0.75, every memory counted, active or not), so a
hybrid search cold ranks what it ranks warm. Keyword search scores each chunk with the chunk's
own statistics (stores/keyword_index.py over the chunk): the same memories match, and the order
is the warm one for spaces of up to CHUNK_ROWS memories.

Which rows a search may return is decided in one place, `admitted`; a new search filter adds
its field to ColdRow, its column to each store's reader, and its test here.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from memspace.domain.models import MemoryFilter
from memspace.stores.keyword_index import KeywordIndex
from memspace.stores.space_vectors import Hybrid, as_block
from memspace.stores.term_index import K1, B

# Rows per read: ~2 MB of vectors and their terms at a time.
CHUNK_ROWS = 5_000


class ColdRow(NamedTuple):
    seq: int
    vector: object  # float32 bytes, a float list, or None
    category: str
    terms: str
    content: str
    active: bool


class Columns(NamedTuple):
    """What a search reads of each row besides its seq, category and `active`: a store may
    leave the rest out of its read (on Neo4j each column is another property fetched and sent;
    the vector is ~1.5 KB of a row, the content only keyword search reads)."""

    vector: bool
    terms: bool
    content: bool


HYBRID = Columns(vector=True, terms=True, content=False)
VECTOR = Columns(vector=True, terms=False, content=False)
TEXT = Columns(vector=False, terms=True, content=False)
KEYWORD = Columns(vector=False, terms=False, content=True)


def admitted(where: MemoryFilter, rows: Sequence[ColdRow]) -> np.ndarray:
    """Which of the rows the filter lets a search return (the one place it is decided)."""
    keep = np.fromiter((where.include_inactive or r.active for r in rows), bool, len(rows))
    if where.category is not None:
        keep &= np.fromiter((r.category == where.category for r in rows), bool, len(rows))
    return keep


@dataclass
class _Matched:
    """A row holding a query term: its term frequencies and length, for BM25 at the end."""

    seq: int
    tf: dict[str, int]
    length: int
    admitted: bool
    cosine: float | None


def hybrid(chunks: Iterable[Sequence[ColdRow]], where: MemoryFilter, query: np.ndarray | None,
           terms: Sequence[str], limit: int) -> Hybrid:
    """What VectorCache.hybrid_top_k returns for a held space (query None: text only)."""
    wanted = set(terms)
    best: list[tuple[float, int, int]] = []  # min-heap of (cosine, -seq, seq)
    matched: list[_Matched] = []
    rows_seen = total_terms = 0
    df = dict.fromkeys(wanted, 0)
    width = 0 if query is None else query.shape[0]
    for chunk in chunks:
        keep = admitted(where, chunk)
        cosines, present = None, np.zeros(len(chunk), dtype=bool)
        if query is not None:
            block, present = as_block([r.vector for r in chunk], width)
            if block.shape[1] == width:
                cosines = block @ query
                rows = np.flatnonzero(keep & present)
                if rows.size > limit:  # only the chunk's best can enter the list
                    rows = rows[np.argpartition(-cosines[rows], limit - 1)[:limit]]
                for i in rows.tolist():
                    item = (float(cosines[i]), -chunk[i].seq, chunk[i].seq)  # ties: older first
                    if len(best) < limit:
                        heapq.heappush(best, item)
                    elif item > best[0]:
                        heapq.heapreplace(best, item)
        for i, row in enumerate(chunk):
            tokens = row.terms.split()
            total_terms += len(tokens)
            hit = wanted.intersection(tokens) if wanted else ()
            if not hit:
                continue
            tf = {t: tokens.count(t) for t in hit}
            for t in tf:
                df[t] += 1
            present_cosine = float(cosines[i]) if cosines is not None and present[i] else None
            matched.append(_Matched(row.seq, tf, len(tokens), bool(keep[i]), present_cosine))
        rows_seen += len(chunk)
    by_vector = [(seq, c) for c, _, seq in sorted(best, reverse=True)]
    bm25 = _bm25(matched, terms, SpaceStats(df, rows_seen, total_terms)).tolist()
    text = sorted(((m.seq, s) for m, s in zip(matched, bm25, strict=True)
                   if m.admitted and s > 0), key=lambda hit: (-hit[1], hit[0]))[:limit]
    scored_text = dict(zip((m.seq for m in matched), bm25, strict=True))
    found = list(dict.fromkeys([seq for seq, _ in by_vector] + [seq for seq, _ in text]))
    cosines_found = {m.seq: m.cosine for m in matched if m.cosine is not None} | dict(by_vector)
    return Hybrid(
        by_vector, text,
        [(seq, cosines_found[seq]) for seq in found if seq in cosines_found],
        [(seq, float(scored_text.get(seq, 0.0))) for seq in found],
    )


class SpaceStats(NamedTuple):
    """A space's BM25 statistics for one query: each query term's document frequency, the
    number of memories and the number of terms they hold in all."""

    df: dict[str, int]
    n: int
    total: int


def text_scores(rows: Sequence[tuple[int, str]], terms: Sequence[str],
                stats: SpaceStats) -> dict[int, float]:
    """BM25 of some of a space's memories, (seq, index terms) each, with the space's own
    statistics: the warm ranking's score of each, whatever else was read."""
    wanted = set(terms)
    matched = []
    for seq, joined in rows:
        tokens = joined.split()
        hit = wanted.intersection(tokens)
        if hit:
            matched.append(_Matched(seq, {t: tokens.count(t) for t in hit}, len(tokens), True,
                                    None))
    scores = _bm25(matched, terms, stats).tolist()
    return {m.seq: float(s) for m, s in zip(matched, scores, strict=True)}


def _bm25(matched: list[_Matched], terms: Sequence[str], stats: SpaceStats) -> np.ndarray:
    """Okapi BM25 of each matched row, in the arithmetic (float32, term by term in the query's
    order) of stores/term_index.py, so that ties and near-ties fall the same way warm and
    cold."""
    scores = np.zeros(len(matched), dtype=np.float32)
    df, n, total = stats
    if not n:
        return scores
    lengths = np.fromiter((m.length for m in matched), np.float32, len(matched))
    for term in dict.fromkeys(terms):
        rows = np.fromiter((i for i, m in enumerate(matched) if term in m.tf), np.int64)
        if not rows.size:
            continue
        counts = [matched[i].tf[term] for i in rows.tolist()]
        tf: np.ndarray | float = 1.0 if all(c == 1 for c in counts) else \
            np.asarray(counts, dtype=np.float32)
        seen = df.get(term, 0)
        idf = np.log1p((n - seen + 0.5) / (seen + 0.5))
        norm = K1 * (1 - B + B * lengths[rows] / (total / n if total else 1.0))
        scores[rows] += (idf * tf * (K1 + 1) / (tf + norm)).astype(np.float32)
    return scores


def keyword(chunks: Iterable[Sequence[ColdRow]], where: MemoryFilter, typed: Sequence[str],
            limit: int, exact: bool = False) -> list[tuple[int, float]]:
    """(seq, score) of the `limit` best memories holding every typed word (typos tolerated
    unless `exact`), each chunk scored with its own statistics."""
    found: list[tuple[int, float]] = []
    for chunk in chunks:
        index = KeywordIndex()
        index.append([r.content for r in chunk])
        scores = index.scores(typed, exact)
        for i in np.flatnonzero(admitted(where, chunk) & (scores > 0)):
            found.append((chunk[int(i)].seq, float(scores[i])))
    return sorted(found, key=lambda hit: (-hit[1], hit[0]))[:limit]
