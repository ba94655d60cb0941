"""A large cold space's own BM25 statistics on Neo4j (stores/neo4j/cold.py asks them).

Lucene's statistics (document frequencies) span every space of the database, so the cold path
scores its candidates with the space's own: each query term's document frequency counted by
Lucene inside the space, up to DF_CAP; a term more common than that, and the average number of
terms a memory holds, from an evenly spaced sample of the space, read once and kept while it
still stands for the space (`_Sample.answers`).
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass

from memspace.stores import cold_scan
from memspace.stores.neo4j.connection import Neo4jConnection
from memspace.stores.neo4j.cypher import cold as cypher
from memspace.stores.neo4j.schema import COLD_TERMS_INDEX

# Query terms' document frequencies are counted by Lucene up to DF_CAP; a term more common
# than that is estimated from SAMPLE_ROWS evenly spaced memories (which also give the average
# length).
DF_CAP = 2_000
SAMPLE_ROWS = 1_000
# A space's sample (`_sample`) is kept for this many spaces, with the counts of at most
# COMMON_KEPT of its terms; a sample of part of a space stands until the space grew by more than
# 1/SAMPLE_GROWTH.
SAMPLES_KEPT = 256
COMMON_KEPT = 512
SAMPLE_GROWTH = 32


class SpaceStatistics:
    """The spaces' statistics, and the samples kept for them (per process)."""

    def __init__(self, db: Neo4jConnection) -> None:
        self._db = db
        self._samples: OrderedDict[str, _Sample] = OrderedDict()
        self._samples_lock = threading.Lock()

    def of(self, space_id: str, wanted: list[str], size: int) -> cold_scan.SpaceStats:
        """The space's own BM25 statistics for these query terms, from the store: each term's
        document frequency counted by Lucene within the space (up to DF_CAP; a term that
        common is estimated from an evenly spaced sample of the space's memories), and the
        average number of terms a memory holds, from the same sample (`_sample`)."""
        if not wanted:
            return cold_scan.SpaceStats({}, size, 0)
        terms = list(dict.fromkeys(wanted))
        queries = [[t, f'+spaceId:"{space_id}" +terms:{escaped(t)}'] for t in terms]
        df = {str(r["term"]): int(r["df"]) for r in self._db.read(
            cypher.TERM_COUNTS, index=COLD_TERMS_INDEX, queries=queries, cap=DF_CAP)}
        sample = self._sample(space_id, size)
        if not sample.rows:
            return cold_scan.SpaceStats(df, size, 0)
        for term in terms:
            if df.get(term, 0) >= DF_CAP:  # too common to count: the sample's share of it
                share = sample.common.get(term, 0) / sample.rows
                df[term] = max(df[term], min(size, round(share * size)))
        return cold_scan.SpaceStats({t: df.get(t, 0) for t in terms}, size,
                                    round(sample.length / sample.rows * size))

    def _sample(self, space_id: str, size: int) -> _Sample:
        """Evenly spaced memories of the space, read once and kept (SAMPLES_KEPT spaces):
        their number of terms, and how many of them hold each term common enough to matter
        (one whose estimate could pass DF_CAP). Kept while the space's last sequence number
        stands; a sample of part of the space (an estimate already) also while the space grew
        by at most 1/SAMPLE_GROWTH since, which moves it less than its own error."""
        with self._samples_lock:
            kept = self._samples.get(space_id)
            if kept is not None and kept.answers(size):
                self._samples.move_to_end(space_id)
                return kept
        step = max(1, size // SAMPLE_ROWS)
        seqs = list(range(1, size + 1, step))[:SAMPLE_ROWS]
        [row] = self._db.read(cypher.TERMS_SAMPLE, space=space_id, seqs=seqs)
        counts: Counter[str] = Counter()
        length = 0
        for held in row["terms"]:
            held_terms = str(held).split()
            length += len(held_terms)
            counts.update(set(held_terms))
        rows = int(row["rows"])
        # A term held by fewer than `floor` sampled memories is estimated below half of
        # DF_CAP at this size: dropped (`answers` checks its estimate stays below DF_CAP).
        floor = math.ceil(DF_CAP / 2 * rows / max(size, 1))
        common = [(t, n) for t, n in counts.most_common(COMMON_KEPT + 1) if n >= floor]
        if len(common) > COMMON_KEPT:
            floor = common[COMMON_KEPT][1] + 1
            common = [(t, n) for t, n in common if n >= floor]
        sample = _Sample(size, size > len(seqs), rows, length, dict(common), floor)
        with self._samples_lock:
            self._samples[space_id] = sample
            self._samples.move_to_end(space_id)
            while len(self._samples) > SAMPLES_KEPT:
                self._samples.popitem(last=False)
        return sample


@dataclass(frozen=True)
class _Sample:
    """What a sample of a space gave (SpaceStatistics._sample)."""

    seq: int  # the space's last sequence number when it was read
    partial: bool  # a part of the space, not all of it
    rows: int
    length: int  # terms held by the sampled memories, in all
    common: dict[str, int]  # term -> sampled memories holding it, for those held by >= floor
    floor: int

    def answers(self, size: int) -> bool:
        """Whether it stands for the space at this last sequence number: the same number, or
        (a partial sample) grown a little, so little that a term it dropped is still
        estimated below DF_CAP."""
        # a dropped term is held by at most floor - 1 sampled memories
        low_enough = (self.floor - 1) * size <= DF_CAP * self.rows
        if size == self.seq:
            return low_enough
        return (self.partial and self.seq < size <= self.seq + self.seq // SAMPLE_GROWTH
                and low_enough)


def escaped(word: str) -> str:
    """A word as a Lucene query term, its special characters escaped."""
    return "".join(f"\\{ch}" if ch in '+-&|!(){}[]^"~*?:\\/' else ch for ch in word)
