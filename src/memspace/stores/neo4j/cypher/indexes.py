"""The store's indexes and their states (stores/neo4j/indexing.py)."""

from __future__ import annotations

INDEX_STATES = "SHOW INDEXES YIELD name, state, populationPercent RETURN name, state, populationPercent"
