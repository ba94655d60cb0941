"""OAuth clients, login links and token families (stores/neo4j/oauth.py)."""

from __future__ import annotations

# -- OAuth (stores/neo4j/oauth.py; records in domain/oauth.py) --------------------------------

OAUTH_SAVE_CLIENT = "CREATE (c:OAuthClient) SET c = $props"
OAUTH_GET_CLIENT = "MATCH (c:OAuthClient {clientId: $id}) RETURN c {.*} AS client"
OAUTH_LIST_CLIENTS = "MATCH (c:OAuthClient) RETURN c {.*} AS client ORDER BY c.createdAt, c.clientId"
OAUTH_SAVE_LOGIN_LINK = "CREATE (l:OAuthLoginLink) SET l = $props"
# One statement, so two consent pages redeeming the same link race on the node's write lock and
# only the first sees `usedAt IS NULL`.
OAUTH_REDEEM_LOGIN_LINK = """
MATCH (l:OAuthLoginLink {sha256: $sha256})
SET l._lock = true
WITH l WHERE l.usedAt IS NULL AND l.expiresAt > $at
SET l.usedAt = $at
RETURN l {.sha256, .keyId, .createdAt, .expiresAt, .usedAt} AS link
"""
OAUTH_START_FAMILY = """
CREATE (f:OAuthFamily) SET f = $family
CREATE (t:OAuthToken) SET t = $code
"""
OAUTH_GET_TOKEN = """
MATCH (t:OAuthToken {sha256: $sha256})
MATCH (f:OAuthFamily {id: t.familyId})
RETURN t {.*} AS token, f {.*} AS family
"""
# Lock the token first (SET), then test it: a concurrent second use waits for the first to
# commit and then finds `usedAt` set, so exactly one use issues tokens.
OAUTH_USE_TOKEN = """
MATCH (t:OAuthToken {sha256: $sha256})
SET t._lock = true
WITH t
MATCH (f:OAuthFamily {id: t.familyId})
WITH t, f WHERE t.usedAt IS NULL AND f.revokedAt IS NULL
SET t.usedAt = $at
WITH count(t) AS used
FOREACH (props IN CASE WHEN used = 1 THEN $issue ELSE [] END | CREATE (n:OAuthToken) SET n = props)
RETURN used
"""
OAUTH_REVOKE_FAMILY = """
MATCH (f:OAuthFamily {id: $id}) WHERE f.revokedAt IS NULL SET f.revokedAt = $at
"""
OAUTH_REVOKE_CLIENT = """
MATCH (f:OAuthFamily {clientId: $id}) WHERE f.revokedAt IS NULL
SET f.revokedAt = $at
RETURN count(f) AS revoked
"""
OAUTH_PURGE_TOKENS = """
MATCH (t:OAuthToken) WHERE t.expiresAt < $before
DETACH DELETE t
RETURN count(t) AS purged
"""
OAUTH_LIST_FAMILIES = "MATCH (f:OAuthFamily) RETURN f {.*} AS family ORDER BY f.createdAt, f.id"
# Created (idempotently) by Neo4jOAuthStore beside the graph's schema (schema.py).
OAUTH_SCHEMA = (
    "CREATE CONSTRAINT oauth_client_id IF NOT EXISTS FOR (c:OAuthClient) REQUIRE c.clientId IS UNIQUE",
    "CREATE CONSTRAINT oauth_family_id IF NOT EXISTS FOR (f:OAuthFamily) REQUIRE f.id IS UNIQUE",
    "CREATE CONSTRAINT oauth_token_sha256 IF NOT EXISTS FOR (t:OAuthToken) REQUIRE t.sha256 IS UNIQUE",
    "CREATE CONSTRAINT oauth_login_link_sha256 IF NOT EXISTS FOR (l:OAuthLoginLink) "
    "REQUIRE l.sha256 IS UNIQUE",
    "CREATE INDEX oauth_family_client IF NOT EXISTS FOR (f:OAuthFamily) ON (f.clientId)",
    "CREATE INDEX oauth_token_expiry IF NOT EXISTS FOR (t:OAuthToken) ON (t.expiresAt)",
)
OAUTH_LABELS = ("OAuthClient", "OAuthLoginLink", "OAuthFamily", "OAuthToken")
OAUTH_PROPERTY_KEYS = (
    "clientId", "redirectUris", "metadata", "keyId", "expiresAt", "usedAt", "grants", "resource",
    "redirectUri", "codeChallenge", "familyId", "revokedAt", "kind", "_lock",
)
