"""GraphStore adapters: the embedded SQLite store (default) and Neo4j."""
