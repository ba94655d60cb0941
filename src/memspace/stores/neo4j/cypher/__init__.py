"""Every Cypher statement and Lucene query string the Neo4j store sends, one module per role
(fields: what several roles share; directory, memories, relations, search, ledger, handoffs,
documents, oauth, note_jobs), all under stores/neo4j/.

Each memory query names the space (`$space`): a space is a property in the one database, so a
statement that forgot it would read across spaces.
"""
