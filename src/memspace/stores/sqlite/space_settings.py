"""SpaceTextStore on the embedded SQLite file: a space's description and its instructions for
agents (migration 14), through the graph store's connection."""

from __future__ import annotations

from memspace.domain.errors import NotFound
from memspace.domain.models import Space
from memspace.stores.sqlite.kit import SqliteKit
from memspace.stores.sqlite.records import space_from_row


class SqliteSpaceSettings:
    def __init__(self, kit: SqliteKit) -> None:
        self._db = kit.db

    def set_space_text(self, space_id: str, description: str | None,
                       instructions: str | None) -> Space:
        with self._db.tx() as conn:
            row = conn.execute(
                "UPDATE spaces SET description = coalesce(?, description), "
                "instructions = coalesce(?, instructions) WHERE id = ? RETURNING *",
                (description, instructions, space_id)).fetchone()
            if row is None:
                raise NotFound(f"no space '{space_id}'")
            return space_from_row(row)
