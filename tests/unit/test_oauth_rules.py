"""What a client may register, at each boundary: the redirect URI allow-list, loopback ports,
fragments, the field and record bounds, and RFC 8707 resource comparison (docs/oauth.md).

The bounds are written here as the documented numbers, not read from the module: changing one
is a change to what a client may register, and must fail a test."""

from __future__ import annotations

import json

import pytest

from memspace.domain.errors import InvalidInput
from memspace.services.access.oauth_rules import (
    check_metadata_bounds,
    check_redirect_uri,
    check_registration,
    redirect_matches,
    same_resource,
)

URI_LIMIT = 2000
NAME_LIMIT = 200
FIELD_LIMIT = 2000
LIST_LIMIT = 10
RECORD_LIMIT = 16_000
REDIRECTS_LIMIT = 10


def _uri_of_length(n: int) -> str:
    head = "https://app.example/"
    return head + "p" * (n - len(head))


def test_a_redirect_uri_may_be_exactly_the_limit_long_and_no_longer() -> None:
    check_redirect_uri(_uri_of_length(URI_LIMIT))
    with pytest.raises(InvalidInput, match=f"at most {URI_LIMIT} characters"):
        check_redirect_uri(_uri_of_length(URI_LIMIT + 1))


@pytest.mark.parametrize("uri", [
    "HTTPS://app.example/cb",                    # the scheme compares case-insensitively
    "http://127.0.0.1/cb", "http://localhost:9/cb", "http://[::1]:8080/cb",
    "cursor://cb", "vscode://cb", "vscode-insiders://cb", "windsurf://cb", "zed://cb", "claude://cb",
    "com.example.app:/callback", "io.x-y.app+beta:/cb",
])
def test_allowed_schemes_and_loopback_hosts_register(uri: str) -> None:
    check_redirect_uri(uri)


@pytest.mark.parametrize(("uri", "says"), [
    ("comexampleapp:/cb", "reverse-domain form"),   # a private scheme needs a dot
    ("com.example.app.:/cb", "reverse-domain form"),
    ("ftp://a.example/cb", "needs https://"),
    ("https://a.example/cb#", "must not carry a fragment"),
    ("https://a.example/cb#frag", "must not carry a fragment"),
    ("com.example.app:/cb#frag", "must not carry a fragment"),
    ("http://app.example/cb", "only allowed on 127.0.0.1, localhost or [::1]"),
    ("http://127.0.0.2/cb", "only allowed on 127.0.0.1"),
    ("http:///cb", "only allowed on"),
    ("https:///cb", "has no host"),
])
def test_each_refusal_names_the_rule_broken(uri: str, says: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_redirect_uri(uri)
    assert says in str(refused.value)


def test_metadata_fields_are_bounded_at_the_documented_sizes() -> None:
    check_metadata_bounds("n" * NAME_LIMIT, {"client_uri": "u" * FIELD_LIMIT,
                                             "contacts": ["c" * FIELD_LIMIT] + ["c"] * (LIST_LIMIT - 1)})
    cases: list[tuple[str, dict[str, object], str]] = [
        ("n" * (NAME_LIMIT + 1), {}, f"client_name may have at most {NAME_LIMIT}"),
        ("n", {"client_uri": "u" * (FIELD_LIMIT + 1)}, f"client_uri may have at most {FIELD_LIMIT}"),
        ("n", {"contacts": ["c"] * (LIST_LIMIT + 1)}, f"contacts may have at most {LIST_LIMIT} entries"),
        ("n", {"contacts": ["c" * (FIELD_LIMIT + 1)]},
         f"each entry of contacts may have at most {FIELD_LIMIT}"),
        ("n", {f"f{i}": "v" * 1900 for i in range(9)}, f"at most {RECORD_LIMIT} characters"),
    ]
    for name, metadata, says in cases:
        with pytest.raises(InvalidInput) as refused:
            check_metadata_bounds(name, metadata)
        assert says in str(refused.value), (name[:10], list(metadata))


def test_a_record_just_under_the_whole_bound_registers() -> None:
    # eight fields of 1,900 characters: each under its own bound, the record ~15,300 in JSON
    check_metadata_bounds("n", {f"f{i}": "v" * 1900 for i in range(8)})


def test_a_registration_needs_one_to_ten_usable_uris_and_bounded_metadata() -> None:
    uris = [f"http://127.0.0.1:{3000 + n}/cb" for n in range(REDIRECTS_LIMIT)]
    check_registration("app", uris, {})
    with pytest.raises(InvalidInput, match="at least one redirect_uri"):
        check_registration("app", [], {})
    with pytest.raises(InvalidInput, match=f"at most {REDIRECTS_LIMIT} redirect_uris"):
        check_registration("app", [*uris, "http://127.0.0.1:1/cb"], {})
    with pytest.raises(InvalidInput, match="only allowed on"):  # every URI is checked, not the first
        check_registration("app", ["https://ok.example/cb", "http://evil.example/cb"], {})
    with pytest.raises(InvalidInput, match="client_name"):
        check_registration("n" * (NAME_LIMIT + 1), ["https://ok.example/cb"], {})


@pytest.mark.parametrize(("registered", "presented", "matches"), [
    ("https://app.example/cb", "https://app.example/cb", True),
    ("com.example.app:/cb", "com.example.app:/cb", True),
    ("http://127.0.0.1:3000/cb", "http://127.0.0.1:4000/cb", True),   # loopback: any port
    ("http://[::1]/cb", "http://[::1]:5000/cb", True),
    ("http://127.0.0.1:3000/cb", "http://127.0.0.1:3000/cb?x=1", False),  # query counts
    ("http://127.0.0.1/cb?a=1", "http://127.0.0.1:9/cb?a=2", False),
    ("http://127.0.0.1/cb", "http://user@127.0.0.1:9/cb", False),       # so do credentials
    ("http://u:p@127.0.0.1/cb", "http://u:q@127.0.0.1:9/cb", False),
    ("http://127.0.0.1/cb", "https://127.0.0.1:9/cb", False),           # scheme never relaxes
    ("https://127.0.0.1/cb", "https://127.0.0.1:9/cb", False),          # only http loopback does
    ("http://127.0.0.1/cb", "http://127.0.0.1:99999/cb", False),        # a malformed port
    ("http://127.0.0.1/cb", "http://127.0.0.1:x/cb", False),
    ("http://127.0.0.1/cb", "http://127.0.0.1/cb#", False),              # never a fragment
    ("https://app.example/cb", "https://APP.example/cb", False),        # byte for byte off loopback
])
def test_a_presented_redirect_matches_only_its_registration(
        registered: str, presented: str, matches: bool) -> None:
    assert redirect_matches(registered, presented) is matches


@pytest.mark.parametrize(("a", "b", "same"), [
    ("https://Mem.Example/mcp", "HTTPS://mem.example/mcp/", True),
    ("https://mem.example/mcp?t=1", "https://mem.example/mcp?t=1", True),
    ("https://mem.example/mcp?t=1", "https://mem.example/mcp?t=2", False),
    ("https://mem.example/mcp", "https://mem.example/MCP", False),       # the path keeps its case
    ("https://mem.example/mcp", "http://mem.example/mcp", False),
    ("https://mem.example:8443/mcp", "https://mem.example/mcp", False),
])
def test_resource_identifiers_compare_per_rfc_8707(a: str, b: str, same: bool) -> None:
    assert same_resource(a, b) is same


def test_refusals_read_as_documented_and_quote_at_most_a_hundred_characters() -> None:
    scheme = "ftp://" + "a" * 200
    with pytest.raises(InvalidInput) as refused:
        check_redirect_uri(scheme)
    assert str(refused.value) == (
        f"redirect URI {scheme[:100]!r} needs https://, http:// on loopback, or a native app's "
        "private-use scheme in reverse-domain form (e.g. com.example.app:/callback)")
    with pytest.raises(InvalidInput) as refused:
        check_redirect_uri("http://app.example/cb")
    assert str(refused.value).endswith("only allowed on 127.0.0.1, localhost or [::1]; use https")
    with pytest.raises(InvalidInput) as refused:
        check_registration("app", [], {})
    assert str(refused.value) == "register at least one redirect_uri"


def test_a_record_of_exactly_the_whole_bound_registers_and_one_more_does_not() -> None:
    metadata: dict[str, object] = {f"f{i}": "v" * 1900 for i in range(8)}
    pad = RECORD_LIMIT - len(json.dumps(metadata | {"g": ""}))
    check_metadata_bounds("n", metadata | {"g": "v" * pad})  # exactly RECORD_LIMIT in JSON
    with pytest.raises(InvalidInput, match=f"at most {RECORD_LIMIT} characters"):
        check_metadata_bounds("n", metadata | {"g": "v" * (pad + 1)})


@pytest.mark.parametrize(("a", "b"), [("https://mem.example/mcpX", "https://mem.example/mcp"),
                                      ("https://mem.example/mcp", "https://mem.example/mcpX")])
def test_only_a_trailing_slash_is_ignored_in_a_resource(a: str, b: str) -> None:
    assert not same_resource(a, b)
