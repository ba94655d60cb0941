"""A space's open conflicts on Neo4j (what get_context and the briefing list), read as memspace
reads them now (its own UPDATES edges, through their space index) and as it read them before
(every UPDATES edge of the store, then the space's), on one server holding many spaces' edges
(docs/scaling.md, "Other reads of a cold space"). It writes SPACES spaces of EDGES UPDATES edges
each (one in ten of their older ends retired), alternates the two reads over 20 of them, and
deletes what it wrote. The server must run on this machine (its CPU is read from /proc).
Prints; asserts nothing.
Usage: open_conflicts.py [--neo4j-uri bolt://127.0.0.1:7687] [--spaces 100] [--edges 200]
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import port_of, process_cpu, store_pid  # noqa: E402
from memspace.stores.neo4j.connection import Neo4jConnection  # noqa: E402
from memspace.stores.neo4j.cypher import relations  # noqa: E402

# The read before the edges carried their space.
EVERY_EDGE = """
MATCH ()-[r:UPDATES]->()
WITH r, startNode(r) AS n, endNode(r) AS o
WHERE n:Memory AND o:Memory AND n.spaceId = $space AND o.spaceId = $space AND n.active
  AND o.active
RETURN n.id AS source, o.id AS target, type(r) AS type, r.createdAt AS createdAt,
       r.createdBy AS createdBy, r.reason AS reason
ORDER BY r.createdAt DESC LIMIT $limit
"""
MAKE = """
UNWIND range(1, $n) AS i
CREATE (o:Memory {id: $space + '-o' + i, spaceId: $space, active: i % 10 <> 0, content: 'old'})
CREATE (n:Memory {id: $space + '-n' + i, spaceId: $space, active: true, content: 'new'})
CREATE (n)-[:UPDATES {spaceId: $space, createdAt: datetime(), createdBy: 'bench',
                      reason: 'bench'}]->(o)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7687")
    parser.add_argument("--spaces", type=int, default=100)
    parser.add_argument("--edges", type=int, default=200)
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    pid = store_pid(port_of(args.neo4j_uri))
    db = Neo4jConnection(args.neo4j_uri, "neo4j", None, None, 5.0, 5.0)
    prefix = f"open-conflicts-{uuid.uuid4().hex[:6]}-"
    spaces = [f"{prefix}{n}" for n in range(args.spaces)]
    try:
        for space in spaces:
            db.write_one(MAKE, space=space, n=args.edges)
        [held] = db.read("MATCH ()-[r:UPDATES]->() RETURN count(r) AS n")
        print(f"{args.spaces} spaces of {args.edges} UPDATES edges written; the store holds "
              f"{held['n']:,} UPDATES edges")
        for _ in range(2):
            for name, statement in (("every UPDATES edge of the store (before)", EVERY_EDGE),
                                    ("the space's own edges (now)", relations.OPEN_CONFLICTS)):
                for space in spaces[:20]:  # plans cached, paths compiled
                    db.read(statement, space=space, limit=10)
                used, began, calls = process_cpu(pid), time.perf_counter(), 0
                for _ in range(5):
                    for space in spaces[:20]:
                        db.read(statement, space=space, limit=10)
                        calls += 1
                print(f"  {name:42s} store {1000 * (process_cpu(pid) - used) / calls:6.2f} ms, "
                      f"wall {1000 * (time.perf_counter() - began) / calls:6.2f} ms a call")
    finally:
        db.write_one("MATCH (m:Memory) WHERE m.id STARTS WITH $p DETACH DELETE m", p=prefix)
        db.close()


if __name__ == "__main__":
    main()
