"""What the statements of several roles share: the relation types, a memory's projection
and the condition that scopes memories to a filter."""

from __future__ import annotations

from memspace.domain.bitemporal import TimeSlice
from memspace.domain.models import MemoryFilter

EDGE_TYPES = "UPDATES|EXTENDS|DERIVES"


def micros(value: str) -> str:
    """A stored DateTime as whole microseconds since the epoch (null stays null).

    The driver turns each DateTime into a zoned `neo4j.time.DateTime`, ~0.1 ms apiece: a
    search at 100,000 memories reads ~90 memories and spent 12 of its 48 ms there
    (cProfile). An integer crosses bolt as it is, and records.from_micros makes it a
    datetime, microseconds kept, as `to_native()` did. `epochMillis` is floored, so the
    microseconds within the millisecond are added even before 1970 (`epochSeconds` is not:
    it rounds toward zero)."""
    return f"{value}.epochMillis * 1000 + {value}.microsecond % 1000"


def memory_fields(var: str) -> str:
    """A map projection of a memory without its embedding (no read path needs it back), its
    datetimes in microseconds (`micros`)."""
    return (
        f"{var} {{.id, .spaceId, .content, .category, .active, "
        f"createdAt: {micros(var + '.createdAt')}, .createdBy, "
        ".contentHash, .documentId, .origin, "
        f"invalidatedAt: {micros(var + '.invalidatedAt')}, .invalidatedBy, .forgetReason, "
        ".forgottenBy, .version, .speaker, .observedAt, .context, .follows, .evidence, "
        ".provenanceKind, .provenanceSource, .suspicious, .type, .status, .importance, "
        f".canonical, .verification, verifiedAt: {micros(var + '.verifiedAt')}, "
        f"validFrom: {micros(var + '.validFrom')}, validTo: {micros(var + '.validTo')}, "
        f"expiresAt: {micros(var + '.expiresAt')}}}"
    )


def prefix_seek(prefix: str) -> str:
    """The space's ids starting with `prefix` (a variable), from the id's index, `$limit` of
    them: unhinted, the planner reads the whole space for each prefix (a search's short ids:
    370 ms on 35,000 memories, 2 hinted)."""
    return (f"CALL ({prefix}) {{ MATCH (m:Memory) USING INDEX m:Memory(id) "
            f"WHERE m.id STARTS WITH {prefix} AND m.spaceId = $space "
            "RETURN m.id AS id ORDER BY id LIMIT $limit }")


def head_fields(var: str) -> str:
    """A memory's head (domain/heads.py, records.head_from) as a list: a ranking's candidates.
    At a million memories, ~100 candidates of a large warm space took 6.5-7.6 ms projected
    whole and 3.2-4.2 ms as heads (bench/cold_profile.py --warm 3)."""
    return f"[{var}.id, {var}.speaker, {var}.observedAt, {var}.follows, {var}.suspicious]"


def memory_filter(where: MemoryFilter, var: str = "m") -> tuple[str, dict[str, object]]:
    """The WHERE condition (and its parameters) that scopes memories to a filter."""
    condition = f"{var}.spaceId = $space"
    params: dict[str, object] = {"space": where.space_id}
    if where.at is not None:
        condition += slice_condition(where.at, var, params)
    elif not where.include_inactive and not where.statuses:
        condition += f" AND {var}.active = true"
    if where.category is not None:
        condition += f" AND {var}.category = $category"
        params["category"] = where.category
    # Memories stored before types and statuses existed carry neither until the startup
    # backfill (stores/neo4j/lifecycle_backfill.py) has run; they read as notes, status as today.
    if where.types:
        condition += f" AND coalesce({var}.type, 'note') IN $types"
        params["types"] = [t.value for t in where.types]
    if where.statuses:
        condition += f" AND {var}.status IN $statuses"
        params["statuses"] = [s.value for s in where.statuses]
    return condition, params


def not_forgotten(var: str) -> str:
    """domain.bitemporal.forgotten negated: a memory retired at its expiry (its invalidatedAt
    is its expiresAt) held until then, so reads of the past still show it."""
    m = var
    return (f"(({m}.forgottenBy IS NULL AND {m}.forgetReason IS NULL) "
            f"OR {m}.invalidatedAt = {m}.expiresAt)")


def slice_condition(at: TimeSlice, var: str, params: dict[str, object]) -> str:
    """domain.bitemporal.holds in Cypher (stores/sqlite/memories.py slice_sql says the same):
    never forgotten; recorded by `$knownAt` and not yet superseded then; valid at `$asOf`."""
    m = var
    condition = f" AND {not_forgotten(m)}"
    replaced = f"{m}.invalidatedAt IS NOT NULL"
    if at.known_at is not None:
        params["knownAt"] = at.known_at
        condition += f" AND {m}.createdAt <= $knownAt"
        replaced = f"({m}.invalidatedAt IS NOT NULL AND {m}.invalidatedAt <= $knownAt)"
    if at.as_of is None:
        return condition + f" AND NOT {replaced}"
    params["asOf"] = at.as_of
    return condition + (f" AND coalesce({m}.validFrom, {m}.createdAt) <= $asOf"
                        f" AND (NOT {replaced} OR ({m}.validTo IS NOT NULL AND {m}.validTo > $asOf))")
