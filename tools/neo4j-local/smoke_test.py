"""Smoke test for a running tools/neo4j-local server (needs the `neo4j` Python driver).

usage: python tools/neo4j-local/smoke_test.py [bolt://127.0.0.1:7687]

Checks over Bolt, in a throwaway label so it leaves the store as it found it: a write, a
uniqueness constraint, a 384-dim cosine vector index queried with db.index.vector.queryNodes,
and a full-text index queried with db.index.fulltext.queryNodes. Exits non-zero on failure.
"""

import math
import os
import sys
import time

from neo4j import GraphDatabase

URI = sys.argv[1] if len(sys.argv) > 1 else "bolt://127.0.0.1:%s" % os.environ.get("NEO4J_LOCAL_PORT", "7687")
L = "SmokeMemory"  # throwaway label, dropped at the end
DIMS = 384


def unit(i: int) -> list[float]:
    """A deterministic non-zero 384-dim vector, distinct per i."""
    v = [math.sin((i + 1) * (k + 1) * 0.37) for k in range(DIMS)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def main() -> int:
    t0 = time.monotonic()
    # Bounded timeouts: a dead server must fail in seconds, not retry for a minute.
    with GraphDatabase.driver(URI, auth=None, connection_timeout=5, max_transaction_retry_time=5) as driver:
        driver.verify_connectivity()
        q = driver.execute_query
        print("server:", q("CALL dbms.components() YIELD name, versions, edition "
                           "RETURN name, versions[0] AS v, edition").records[0].data())

        q(f"CREATE CONSTRAINT smoke_id IF NOT EXISTS FOR (m:{L}) REQUIRE m.id IS UNIQUE")
        q(f"CREATE VECTOR INDEX smoke_vec IF NOT EXISTS FOR (m:{L}) ON (m.embedding) "
          "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}")
        q(f"CREATE FULLTEXT INDEX smoke_ft IF NOT EXISTS FOR (m:{L}) ON EACH [m.text]")
        q("CALL db.awaitIndexes(60)")

        texts = ["the cat sat on the mat", "neo4j stores graphs", "vectors live in lucene"]
        q(f"UNWIND $rows AS r CREATE (m:{L} {{id: r.id, text: r.text, embedding: r.emb}})",
          rows=[{"id": f"s{i}", "text": t, "emb": unit(i)} for i, t in enumerate(texts)])

        # Uniqueness constraint is enforced.
        try:
            q(f"CREATE (:{L} {{id: 's0'}})")
            raise AssertionError("uniqueness constraint not enforced")
        except Exception as e:  # neo4j.exceptions.ConstraintError
            assert "ConstraintValidationFailed" in str(getattr(e, "code", "")) or "already exists" in str(e), e

        recs = q("CALL db.index.vector.queryNodes('smoke_vec', 2, $v) YIELD node, score "
                 "RETURN node.id AS id, score", v=unit(1)).records
        print("vector:", [(r["id"], round(r["score"], 4)) for r in recs])
        assert recs and recs[0]["id"] == "s1" and recs[0]["score"] > 0.999, recs

        recs = q("CALL db.index.fulltext.queryNodes('smoke_ft', 'graphs') YIELD node, score "
                 "RETURN node.id AS id, score").records
        print("fulltext:", [(r["id"], round(r["score"], 4)) for r in recs])
        assert [r["id"] for r in recs] == ["s1"], recs

        # Clean up so the store is left as found.
        q(f"MATCH (m:{L}) DETACH DELETE m")
        q("DROP INDEX smoke_vec IF EXISTS")
        q("DROP INDEX smoke_ft IF EXISTS")
        q("DROP CONSTRAINT smoke_id IF EXISTS")
    print(f"smoke test OK ({time.monotonic() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
