"""Typo-tolerant keyword search in the embedded store (FTS5). Vectors and BM25 full text are
ranked in process (stores/vector_cache.py, stores/term_index.py); every kind of hit comes back
as rowids, turned into memories here."""

from __future__ import annotations

import json
import sqlite3
import threading

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from memspace.domain.models import MemoryFilter, ScoredMemory
from memspace.domain.text import max_edits, tolerated, words
from memspace.stores.sqlite import fulltext
from memspace.stores.sqlite.memories import filter_sql
from memspace.stores.sqlite.records import MEMORY_COLUMNS, memory_from_row


def by_rowid(conn: sqlite3.Connection, scored: list[tuple[int, float]]) -> list[ScoredMemory]:
    """The memories of (rowid, score) hits, in the hits' order."""
    [hits] = lists_by_rowid(conn, [scored])
    return hits


def lists_by_rowid(conn: sqlite3.Connection,
                   lists: list[list[tuple[int, float]]]) -> list[list[ScoredMemory]]:
    """The memories of several lists of (rowid, score) hits, read in one query."""
    wanted = list({r: None for scored in lists for r, _ in scored})
    if not wanted:
        return [[] for _ in lists]
    rows = conn.execute(
        f"SELECT rowid, {MEMORY_COLUMNS} FROM memories WHERE rowid IN "
        "(SELECT value FROM json_each(?))",
        (json.dumps(wanted),),
    ).fetchall()
    found = {r["rowid"]: memory_from_row(r) for r in rows}
    return [[ScoredMemory(found[r], s) for r, s in scored if r in found] for scored in lists]


class Vocabulary:
    """Every word of the full-text index. Read whole once; after that only the memories added
    since are read and their words added (memories are never deleted, so it only grows).
    Re-reading the whole index after every add made a keyword search at 100,000 memories take
    115 ms (bench_service.py, adds between searches). A word this process adds that FTS5
    tokenises differently only costs a variant that matches nothing."""

    def __init__(self) -> None:
        self._marker = -1
        self._words: list[str] = []
        self._known: set[str] = set()
        self._lock = threading.Lock()

    def words(self, conn: sqlite3.Connection) -> list[str]:
        marker = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0])
        with self._lock:
            if self._marker < 0:
                self._words = [r[0] for r in conn.execute("SELECT term FROM memory_vocab")]
                self._known = set(self._words)
            elif marker > self._marker:
                fresh: list[str] = []
                for (content,) in conn.execute(
                        "SELECT content FROM memories WHERE rowid > ?", (self._marker,)):
                    new = [w for w in words(content) if w not in self._known]
                    self._known.update(new)
                    fresh += new
                if fresh:  # a new list: a search still reading the old one is not disturbed
                    self._words = self._words + fresh
            self._marker = max(marker, self._marker)
            return self._words


def keyword(conn: sqlite3.Connection, vocabulary: Vocabulary, where: MemoryFilter, query: str,
            limit: int) -> list[ScoredMemory]:
    """Every word of `query`, each matched within its edit distance (domain.text.max_edits)."""
    terms = words(query)
    if not terms:
        return []
    known = vocabulary.words(conn)
    groups: list[str] = []
    for term in terms:
        edits = max_edits(term)
        variants = {term}
        if edits:
            matches = process.extract(
                term, known, scorer=DamerauLevenshtein.distance, score_cutoff=edits, limit=None,
            )
            variants.update(m[0] for m in matches if tolerated(term, m[0]))
        groups.append("(" + " OR ".join(f'"{v}"' for v in sorted(variants)) + ")")
    sql, args = filter_sql(where)
    return by_rowid(conn, fulltext.ranked(conn, "memory_fts", " AND ".join(groups), sql, args,
                                          limit))
