"""SpaceTextStore on Neo4j: a space's description and its instructions for agents, as
properties of its Space node (statement in cypher/directory.py)."""

from __future__ import annotations

from memspace.domain.errors import NotFound
from memspace.domain.models import Space
from memspace.stores.neo4j import records as rec
from memspace.stores.neo4j.cypher import directory as cypher
from memspace.stores.neo4j.kit import Neo4jKit


class Neo4jSpaceSettings:
    def __init__(self, kit: Neo4jKit) -> None:
        self._db = kit.db

    def set_space_text(self, space_id: str, description: str | None,
                       instructions: str | None) -> Space:
        rows = self._db.write_one(cypher.SET_SPACE_TEXT, id=space_id, description=description,
                                  instructions=instructions)
        if not rows:
            raise NotFound(f"no space '{space_id}'")
        return rec.space_from(rows[0]["space"])
