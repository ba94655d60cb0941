"""Short ids: every surface shows a memory (and, in time, a conflict, document, handoff or
chunk) by the shortest prefix of its id unique among its kind in its space, at least
`SHORT_ID_CHARS` characters, as git shows commits; every call that takes an id takes that
prefix or the whole id. Both directions are here, so the rule is said once.

`find(prefixes, limit)` is a store read bound to one space and one kind (e.g.
`MemoryReadStore.ids_with_prefix`): ids of other spaces are never seen, so a prefix never
resolves across spaces and a foreign one answers exactly like a missing one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from memspace.domain.errors import AmbiguousId
from memspace.domain.models import Document
from memspace.domain.ports import DocumentStore, MemoryReadStore

# 8 hex characters tell 4.3 billion ids apart: two in a space of 10,000 share them with a
# chance of about 1 in 86,000, and then both are shown longer.
SHORT_ID_CHARS = 8
# Ids read per 8-character head; a head shared by more (only ids made outside memspace could)
# shows its ids whole rather than trust a count it cut short.
SHARED_HEAD_LIMIT = 32
# Ids read per head for short_ids: one past the shared limit, to tell "at the limit" from "past".
HEAD_READ = SHARED_HEAD_LIMIT + 1
# An id this long is taken as whole, without a read: memspace's ids are 32 hex characters
# (new_id), and an imported id of another form is still found by the caller's own read.
WHOLE_ID_CHARS = 32
# Candidates an ambiguous prefix lists.
CANDIDATES = 5

Find = Callable[[Sequence[str], int], list[str]]


def _shared(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share."""
    return next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def short_ids(find: Find, ids: Iterable[str]) -> dict[str, str]:
    """Each id -> its shortest prefix unique among the ids `find` sees, at least
    SHORT_ID_CHARS long. One store read for all of them."""
    wanted = list(dict.fromkeys(ids))
    heads = sorted({i[:SHORT_ID_CHARS] for i in wanted if len(i) > SHORT_ID_CHARS})
    sharing: dict[str, list[str]] = {}
    for found in find(heads, HEAD_READ) if heads else []:
        sharing.setdefault(found[:SHORT_ID_CHARS], []).append(found)
    shown: dict[str, str] = {}
    for i in wanted:
        others = [o for o in sharing.get(i[:SHORT_ID_CHARS], []) if o != i]
        if len(others) >= SHARED_HEAD_LIMIT:
            shown[i] = i
            continue
        length = max([SHORT_ID_CHARS] + [_shared(i, o) + 1 for o in others])
        shown[i] = i[:length]
    return shown


def read_before(find: Find, heads: frozenset[str], sharing: Sequence[str]) -> Find:
    """`find`, answered from `sharing` (ids of the kind already read for `heads`, HEAD_READ of
    them per head, as `find(heads, HEAD_READ)` would have) when it asks for those heads alone;
    anything else is read by `find`."""

    def answered(prefixes: Sequence[str], limit: int) -> list[str]:
        if limit > HEAD_READ or not set(prefixes) <= heads:
            return find(prefixes, limit)
        return [i for p in dict.fromkeys(prefixes) for i in sorted(
            i for i in sharing if i.startswith(p))[:limit]]

    return answered


def resolve_id(find: Find, given: str, kind: str, argument: str) -> str:
    """The whole id `given` stands for: itself when it is a whole id or too short to be a short
    one (the caller's read then finds it or says it is missing), the one id it starts, or
    AmbiguousId listing the ids it starts.

    Raises:
        AmbiguousId: `given` starts more than one id of the kind in the space.
    """
    given = (given or "").strip()
    if not SHORT_ID_CHARS <= len(given) < WHOLE_ID_CHARS:
        return given
    found = find([given], CANDIDATES + 1)
    if not found or given in found:
        return given
    if len(found) == 1:
        return found[0]
    shown = short_ids(lambda _p, _n: found, found)
    raise AmbiguousId(kind, given, argument, [shown[i] for i in found[:CANDIDATES]])


def resolve_ids(find: Find, given: Sequence[str], kind: str, argument: str) -> list[str]:
    """`resolve_id` for each of `given`, in order."""
    return [resolve_id(find, g, kind, argument) for g in given]


def memory_ids(reads: MemoryReadStore, space_id: str) -> Find:
    """The memories' ids of one space, by prefix: `Find` for memories."""
    return lambda prefixes, limit: reads.ids_with_prefix(space_id, prefixes, limit)


def memory_id_of(reads: MemoryReadStore, space_id: str, given: str,
                 argument: str = "memoryId") -> str:
    """The whole memory id `given` (a short id or the whole one) stands for in the space."""
    return resolve_id(memory_ids(reads, space_id), given, "memory", argument)


def among(ids: Iterable[str]) -> Find:
    """`Find` over ids already read (a conflict's sides, the open conflicts of a space)."""
    listed = sorted(set(ids))
    return lambda prefixes, limit: [i for p in dict.fromkeys(prefixes)
                                    for i in [x for x in listed if x.startswith(p)][:limit]]


def document_id_of(documents: DocumentStore, space_id: str, given: str) -> str:
    """The whole document id `given` (a short id or the whole one) stands for in the space."""
    return resolve_id(lambda prefixes, limit: documents.ids_with_prefix(space_id, prefixes, limit),
                      given, "document", "documentId")


def document_in(documents: DocumentStore, space_id: str, given: str) -> Document | None:
    """The space's document `given` (a short id or the whole one) names, or None."""
    return documents.get_document(space_id, document_id_of(documents, space_id, given))
