"""Reading relations and walking them (stores/neo4j/relations.py)."""

from __future__ import annotations

from memspace.stores.neo4j.cypher.fields import EDGE_TYPES, memory_fields, not_forgotten

_RELATION_FIELDS = """
RETURN startNode(r).id AS source, endNode(r).id AS target, type(r) AS type,
       r.createdAt AS createdAt, r.createdBy AS createdBy, r.reason AS reason
ORDER BY r.createdAt, source, target, type
"""

RELATIONS_OF = f"""
MATCH (m:Memory {{id: $id}})-[r:{EDGE_TYPES}]-(other:Memory)
WHERE m.spaceId = $space AND other.spaceId = $space
WITH DISTINCT r
{_RELATION_FIELDS}"""
# From the space's UPDATES edges (few) to their ends, through the edges' own space index
# (schema.py `relation_updates_space`): not from every memory of the space to its edges (41-47
# against 2-8 ms at 100,000 memories), nor from every UPDATES edge of the store, which grows
# with every other space. Hinted: on a small space the planner starts from its memories.
OPEN_CONFLICTS = """
MATCH (n:Memory)-[r:UPDATES]->(o:Memory) USING INDEX r:UPDATES(spaceId)
WHERE r.spaceId = $space AND n.spaceId = $space AND o.spaceId = $space AND n.active
  AND o.active
RETURN n.id AS source, o.id AS target, type(r) AS type, r.createdAt AS createdAt,
       r.createdBy AS createdBy, r.reason AS reason
ORDER BY r.createdAt DESC LIMIT $limit
"""
# Edges written before they carried their space (relation_backfill.py), a batch at a time.
EDGES_WITHOUT_SPACE = f"""
MATCH (s:Memory)-[r:{EDGE_TYPES}]->(:Memory) WHERE r.spaceId IS NULL
WITH r, s LIMIT $limit
SET r.spaceId = s.spaceId
RETURN count(r) AS done
"""
RELATIONS_AMONG = f"""
UNWIND $ids AS id
MATCH (s:Memory {{id: id}})-[r:{EDGE_TYPES}]->(t:Memory)
WHERE s.spaceId = $space AND t.spaceId = $space AND t.id IN $ids
{_RELATION_FIELDS}"""


def nearest_walks(hops: int, origin: str = "o") -> str:
    """From each origin memory (`origin`, a variable bound before), the shortest walk to each
    neighbour, the nearest `$per` kept per origin: rows of `origin` and `x` (x.n the
    neighbour, x.hops, x.via, x.direction). `neighbours` and the answer's one read
    (cypher/answer.py) both walk this way, so their neighbourhoods are the same."""
    return f"""
MATCH p = ({origin})-[:{EDGE_TYPES}*1..{int(hops)}]-(n:Memory)
WHERE n <> {origin} AND all(x IN nodes(p) WHERE x.spaceId = $space)
  AND ($knownAt IS NULL OR (all(e IN relationships(p) WHERE e.createdAt <= $knownAt)
       AND n.createdAt <= $knownAt AND {not_forgotten("n")}))
WITH {origin}, n, p ORDER BY length(p)
WITH {origin}, n, collect(p)[0] AS p
WITH {origin}, n, length(p) AS hops, last(relationships(p)) AS r
ORDER BY hops, n.createdAt DESC, n.id
WITH {origin}, collect({{n: n, hops: hops, via: type(r),
                 direction: CASE WHEN endNode(r) = n THEN 'out' ELSE 'in' END}})[..$per] AS near
UNWIND near AS x
"""


def neighbours(hops: int) -> str:
    """Shortest walk per (origin, neighbour) over relations in either direction, in ONE query.

    `via` is the type of the walk's last relation; `direction` is "out" when that relation
    points from the node before at the neighbour. A variable-length pattern never reuses a
    relationship and is bounded by `hops`, so cycles cannot loop. Cypher 5 cannot take the
    bound as a parameter, hence the int literal. `$knownAt` (or null) walks only the relations
    recorded by then, to memories that existed then and are not forgotten (docs/time.md).
    """
    return f"""
UNWIND $ids AS oid
MATCH (o:Memory {{id: oid}}) WHERE o.spaceId = $space
{nearest_walks(hops)}
WITH o, x, x.n AS n
RETURN o.id AS origin, x.hops AS hops, x.via AS via, x.direction AS direction,
       {memory_fields("n")} AS memory
ORDER BY origin, hops, n.createdAt DESC, n.id
"""
