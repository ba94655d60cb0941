"""Every domain error reaches an MCP caller as the code the README documents (mcp/errors.py)."""

from __future__ import annotations

import pytest

from memspace.domain import errors as domain
from memspace.domain.errors import MemspaceError
from memspace.mcp.errors import CODES, code_of, coded

# The README's closed set and each error type's code in it, written out rather than read from
# mcp/errors.py: a type that changes code, or a code that leaves the set, fails here.
README_CODES = {"invalid_input", "not_found", "forbidden", "unauthenticated", "conflict",
                "stale_version", "too_large", "duplicate", "unavailable"}
DOCUMENTED: list[tuple[MemspaceError, str]] = [
    (domain.InvalidInput("x"), "invalid_input"),
    (domain.TooLarge("x"), "too_large"),
    (domain.UnreadableDocument("x"), "invalid_input"),
    (domain.Unauthenticated("x"), "unauthenticated"),
    (domain.NotFound("x"), "not_found"),
    (domain.Forbidden("x"), "forbidden"),
    (domain.Conflict("x"), "conflict"),
    (domain.DuplicateContent({"h": "m1"}), "duplicate"),
    (domain.StaleVersion("m1", 1, 2, "m2"), "stale_version"),
    (domain.Unavailable("x"), "unavailable"),
    (domain.ExtractionFailed("x"), "unavailable"),
]


def test_the_closed_set_is_the_one_the_readme_lists() -> None:
    assert set(CODES) == README_CODES


@pytest.mark.parametrize("error, code", DOCUMENTED, ids=lambda v: type(v).__name__ if
                         isinstance(v, MemspaceError) else v)
def test_each_error_type_has_its_documented_code(error: MemspaceError, code: str) -> None:
    assert code_of(error) == code
    refused = coded(error)
    assert (refused.code, refused.message) == (code, error.message)


def _every_error_type(kind: type[MemspaceError]) -> list[type[MemspaceError]]:
    return [kind, *(k for sub in kind.__subclasses__() for k in _every_error_type(sub))]


def test_every_error_type_of_the_domain_is_in_the_table_above() -> None:
    # a new error type must be given its code here (and in the README) when it is added
    tested = {type(error) for error, _ in DOCUMENTED}
    local = {k for k in _every_error_type(MemspaceError) if k.__module__ == domain.__name__}
    assert local - {MemspaceError} <= tested, "add the new type to DOCUMENTED"


def test_a_stale_version_carries_what_to_reload() -> None:
    refused = coded(domain.StaleVersion("m1", 1, 3, "m3"))
    assert refused.extra == {"memoryId": "m1", "yourVersion": 1, "currentVersion": 3,
                             "currentId": "m3"}


class Strange(MemspaceError):
    code = "strange"


class StrangeNotFound(domain.NotFound):
    code = "strange_not_found"


@pytest.mark.parametrize("error", [Strange("x"), MemspaceError("x"), StrangeNotFound("x")],
                         ids=["unknown", "the-base", "unknown-under-a-known-parent"])
def test_a_type_outside_the_closed_set_is_a_bug_named_not_an_unavailable(error: MemspaceError) -> None:
    with pytest.raises(TypeError, match=type(error).__name__):
        code_of(error)
