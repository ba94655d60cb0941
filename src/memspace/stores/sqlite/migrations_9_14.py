"""Migrations 9-14 of the embedded store, in order (stores/sqlite/migrations.py's MIGRATIONS
lists them in place). Their text never changes: a store is numbered by the ones it applied."""

from __future__ import annotations

# Timestamps are ISO-8601 UTC text with microseconds, so they sort as they compare.
MIGRATIONS_9_TO_14: list[str] = [
    # 9: who said a memory and when (docs/contract.md), the turn it continues (its search context),
    # and the ranked full-text index over terms made in Python (domain.text.index_terms), the
    # same terms the Neo4j store indexes. Rows written before get their terms in
    # backfill_terms() below, which also rebuilds the index.
    """
    ALTER TABLE memories ADD COLUMN speaker TEXT;
    ALTER TABLE memories ADD COLUMN observed_at TEXT;   -- ISO 8601 in the caller's own offset
    ALTER TABLE memories ADD COLUMN context TEXT;
    ALTER TABLE memories ADD COLUMN terms TEXT;
    CREATE INDEX memories_by_writer ON memories (space_id, created_by, created_at)
        WHERE document_id IS NULL;
    CREATE VIRTUAL TABLE memory_terms USING fts5(
        terms, content='memories', content_rowid='rowid', tokenize='unicode61 remove_diacritics 0'
    );
    CREATE TRIGGER memories_terms_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memory_terms (rowid, terms) VALUES (new.rowid, coalesce(new.terms, ''));
    END;
    """,
    # 10: full text is ranked in process with each space's own statistics
    # (stores/term_index.py, from `memories.terms`): the FTS5 index of migration 9 goes.
    """
    DROP TRIGGER IF EXISTS memories_terms_insert;
    DROP TABLE IF EXISTS memory_terms;
    """,
    # 11: the id of the turn a memory continues (the memory its context was taken from), which
    # search uses to lift a turn whose neighbour matched too (services/search/ranking.py). Turns saved
    # before get it back the way services/memories/conversation.py found their context: the writer's
    # latest memory before them, kept only if its content is that context.
    """
    ALTER TABLE memories ADD COLUMN follows TEXT;
    UPDATE memories SET follows = (
        SELECT p.id FROM memories AS p INDEXED BY memories_by_writer
        WHERE p.space_id = memories.space_id AND p.created_by = memories.created_by
          AND p.document_id IS NULL AND p.created_at <= memories.created_at
          AND p.rowid < memories.rowid
        ORDER BY p.created_at DESC, p.rowid DESC LIMIT 1
    ) WHERE context IS NOT NULL AND document_id IS NULL;
    UPDATE memories SET follows = NULL WHERE follows IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM memories AS p WHERE p.id = memories.follows
          AND (p.content = memories.context OR memories.context LIKE '…%')
    );
    """,
    # 12: facts about the store as a whole: the embedding model its vectors were made with
    # (services/embedding_model.py)
    """
    CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 13: keyword search runs in process too, over each space's own words
    # (stores/keyword_index.py): the FTS5 index of migration 1 goes, and with it its upkeep on
    # every insert.
    """
    DROP TABLE IF EXISTS memory_vocab;
    DROP TRIGGER IF EXISTS memories_fts_insert;
    DROP TABLE IF EXISTS memory_fts;
    """,
    # 14: evidence (domain/evidence.py): a memory's citations and how well they hold, each
    # space's evidence policy, the git repositories registered per space, their indexed files
    # (hash per file, so an unchanged file is skipped) and code chunks, and the commits mined
    """
    ALTER TABLE memories ADD COLUMN evidence TEXT;          -- JSON (domain/evidence_codec.py)
    ALTER TABLE memories ADD COLUMN verification TEXT;
    ALTER TABLE memories ADD COLUMN verified_at TEXT;
    CREATE INDEX memories_by_verification ON memories (space_id, verification, created_at)
        WHERE verification IS NOT NULL;
    CREATE TABLE evidence_policies (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id),
        policy TEXT NOT NULL CHECK (policy IN ('optional', 'required'))
    );
    CREATE TABLE repos (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        name TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL,
        created_at TEXT NOT NULL,
        synced_at TEXT,
        head TEXT,
        generation INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE code_files (
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        language TEXT NOT NULL,
        PRIMARY KEY (repo_id, path)
    );
    CREATE TABLE code_chunks (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id),
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        symbol TEXT,
        language TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX code_chunks_by_file ON code_chunks (repo_id, path, start_line);
    CREATE INDEX code_chunks_by_space ON code_chunks (space_id);
    CREATE TABLE mined_commits (
        repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        PRIMARY KEY (repo_id, sha)
    );
    """,
]
