"""memspace's own scanner rules, one case each that fails when the rule is taken out: the
whole PEM block (detect-secrets marks only its BEGIN line), GitHub fine-grained tokens (which
detect-secrets 1.5.0 predates) and the digest-prefix filter (a subresource-integrity or image
digest is a hash, not a credential). Each asserts the redacted text exactly, so a rule that
still finds something but leaves a piece of the value behind fails too."""

from __future__ import annotations

import base64
import hashlib
import textwrap

import pytest

from memspace.services.security.secrets import SecretScanner, redact

# A key body as a PEM file carries it: base64 in 64-character lines. Hashes make it look as
# random as a real key (a sequential body would be dropped by detect-secrets' heuristics).
_KEY_BYTES = bytes.fromhex("308204a40201000282010100") + b"".join(
    hashlib.sha256(bytes([i])).digest() for i in range(36))
BODY = textwrap.wrap(base64.b64encode(_KEY_BYTES).decode(), 64)
PEM = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----"])
# github_pat_, 22 characters, _, 59 characters: the format GitHub issues.
FINE_GRAINED = ("github_pat_11ABCDEFG0aB3cD4eF5gH6_iJ7kL8mN9oP0qR1sT2uV3wX4yZ5aB6cD7eF8gH9iJ0"
                "kL1mN2oP3qR4sT5uV")


@pytest.fixture(scope="module")
def scanner() -> SecretScanner:
    return SecretScanner()


def test_the_key_body_starts_as_real_rsa_keys_do() -> None:
    assert BODY[0].startswith("MIIEpAIBAAKCAQEA") and len(BODY) > 10


def test_redacting_a_private_key_leaves_no_byte_of_its_body(scanner: SecretScanner) -> None:
    text = f"deploy key for the runner:\n{PEM}\nrotate it yearly"
    found = scanner.scan(text)
    assert [f.kind for f in found] == ["private-key"]
    assert redact(text, found) == "deploy key for the runner:\n[redacted:private-key]\nrotate it yearly"


def test_a_private_key_cut_off_before_its_end_line_is_redacted_to_the_end(
        scanner: SecretScanner) -> None:
    text = "pasted half a key: " + "\n".join(["-----BEGIN OPENSSH PRIVATE KEY-----", *BODY[:5]])
    found = scanner.scan(text)
    assert redact(text, found) == "pasted half a key: [redacted:private-key]"


def test_two_keys_in_one_text_are_two_findings(scanner: SecretScanner) -> None:
    text = f"{PEM}\nand the old one\n{PEM.replace('RSA', 'EC')}"
    found = scanner.scan(text)
    assert [f.kind for f in found] == ["private-key", "private-key"]
    assert redact(text, found) == "[redacted:private-key]\nand the old one\n[redacted:private-key]"


@pytest.mark.parametrize("text", [
    f"the CI token is {FINE_GRAINED} (read-only)",
    f"GH_TOKEN {FINE_GRAINED}",
], ids=["in-prose", "after-a-name"])
def test_a_fine_grained_github_token_is_found_whole(scanner: SecretScanner, text: str) -> None:
    found = scanner.scan(text)
    assert [f.kind for f in found] == ["github-token"]
    assert redact(text, found) == text.replace(FINE_GRAINED, "[redacted:github-token]")


@pytest.mark.parametrize("text", [
    '<script src="app.js" integrity="sha256-OvAuZI99J/9HPwzm0FyitFTxGRmPChcdcuH1DjRfXtM="></script>',
    '"integrity": "sha512-Wf7jD9kQ2mNpX4rT6vB8yL1cH3sG5aZ0eU7iO9pK2lM4nB6vC8xZ1qW3eR5tY7uI9oP'
    '0aS2dF4gH6jK8lQ=="',
    'integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"',
    "image: ghcr.io/acme/api@sha256:OvAuZI99J/9HPwzm0FyitFTxGRmPChcdcuH1DjRfXtM=",
], ids=["script-sha256", "lockfile-sha512", "sha384", "image-digest"])
def test_a_digest_after_its_algorithm_prefix_is_no_credential(scanner: SecretScanner,
                                                               text: str) -> None:
    assert scanner.scan(text) == []


def test_the_same_value_without_a_digest_prefix_is_still_found(scanner: SecretScanner) -> None:
    """The digest filter reads the prefix, not the value: a quoted random value is flagged."""
    assert [f.kind for f in scanner.scan('key="OvAuZI99J/9HPwzm0FyitFTxGRmPChcdcuH1DjRfXtM="')]
