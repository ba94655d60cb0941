"""What a search's answer reads once its ranking is done, as one statement
(stores/neo4j/memory_reads.py `answer_reads`): the memories shown, their neighbourhoods, and the
ids sharing the short-id head of any of them. Three statements did the same: each costs a
round trip, a session and its decoding in the replica, and its own work in the server (on the
kept 200,000-memory load, a search: 1.5-2.0 ms of the server's CPU and 1.2-1.4 ms of the
client's for the three, 0.8-1.0 and 0.5-0.7 ms for this one; bench/answer_reads.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import memory_fields, prefix_seek
from memspace.stores.neo4j.cypher.relations import nearest_walks


def answer_reads(hops: int) -> str:
    """`$ids` whole, their neighbourhoods as `relations.neighbours(hops)` walks them (today's:
    `$knownAt` null), and for every id of either longer than `$head` characters, the ids
    starting with its head. One record."""
    return f"""
MATCH (h:Memory) WHERE h.id IN $ids AND h.spaceId = $space
WITH collect(h) AS hits
CALL (hits) {{
  UNWIND hits AS o
  {nearest_walks(hops)}
  WITH o, x, x.n AS n ORDER BY o.id, x.hops, n.createdAt DESC, n.id
  RETURN collect({{origin: o.id, hops: x.hops, via: x.via, direction: x.direction,
                   memory: {memory_fields("n")}}}) AS related
}}
WITH hits, related,
     [i IN [h IN hits | h.id] + [r IN related | r.memory.id] WHERE size(i) > $head
      | left(i, $head)] AS heads
CALL (heads) {{
  UNWIND heads AS prefix
  WITH DISTINCT prefix
  {prefix_seek("prefix")}
  RETURN collect(id) AS sharing
}}
RETURN [h IN hits | {memory_fields("h")}] AS memories, related, heads, sharing
"""
