"""Each of the scanner's own rules held at its edges (services/security/secret_rules.py and the
filters in services/security/secrets.py): the bare-base64 rule's character classes, entropy bound
and the URL, path and readable-text exclusions; the prose-password value; the filters that turn
a match down (short values, UUIDs, `$VARIABLES`, inline images); a finding widened to the whole
token; and both labelled corpora exactly as measured. The corpus tests bound recall and false
positives by ratio, which one rule's removal can stay inside: these fail on it."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from memspace.services.security.secret_rules import encodes_text, entropy
from memspace.services.security.secrets import SecretScanner, redact

DATA = Path(__file__).parents[1] / "data"


def random_bytes(n: int, seed: bytes = b"bounds") -> bytes:
    out = b""
    while len(out) < n:
        out += hashlib.sha256(seed + len(out).to_bytes(4, "big")).digest()
    return out[:n]


# 40 characters of base64 of random bytes: upper and lower case, digits, 4.73 bits a character.
KEY = base64.b64encode(random_bytes(30)).decode()
# 64 characters: random enough (above 4.5 bits) with one character class taken out.
LONG_KEY = base64.b64encode(random_bytes(48, b"classes")).decode()


def exactly_four_and_a_half_bits() -> str:
    """32 characters: 16 once and 8 twice, so -sum(p log2 p) = 16/32*5 + 16/32*4 = 4.5 exactly
    (every term a power of two), shuffled so it reads as no sequence."""
    chars = list("ABCDEFGHabcdefgh" + "01234567" * 2)
    random.Random(7).shuffle(chars)
    return "".join(chars)


@pytest.fixture(scope="module")
def scanner() -> SecretScanner:
    return SecretScanner()


def found(scanner: SecretScanner, text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start:f.end]) for f in scanner.scan(text)]


def test_entropy_is_shannons_in_bits_a_character() -> None:
    assert entropy("aaaa") == 0
    assert entropy("aabb") == 1.0
    assert entropy("abcd") == 2.0
    assert entropy(exactly_four_and_a_half_bits()) == 4.5
    assert 4.5 < entropy(KEY) < 5


def test_a_bare_base64_key_with_no_keyword_near_it_is_found_whole(scanner: SecretScanner) -> None:
    text = f"the deploy signature is {KEY} for now"
    assert found(scanner, text) == [("high-entropy-base64", KEY)]


def test_three_of_the_same_key_on_a_line_are_three_findings(scanner: SecretScanner) -> None:
    text = f"{KEY} then {KEY} and {KEY}"
    assert found(scanner, text) == [("high-entropy-base64", KEY)] * 3


@pytest.mark.parametrize("change", [str.lower, str.upper, lambda k: re.sub(r"\d", "Q", k)],
                         ids=["no-upper-case", "no-lower-case", "no-digit"])
def test_a_base64_run_lacking_a_character_class_is_not_the_rules(scanner: SecretScanner,
                                                                change: object) -> None:
    assert found(scanner, f"the deploy signature is {LONG_KEY} for now") != []
    value = change(LONG_KEY)  # type: ignore[operator]
    assert entropy(value) > 4.5  # still random enough: only the class is missing
    assert found(scanner, f"the deploy signature is {value} for now") == []


def test_the_entropy_bound_is_above_four_and_a_half_bits(scanner: SecretScanner) -> None:
    value = exactly_four_and_a_half_bits()
    assert re.search(r"[A-Z]", value) and re.search(r"[a-z]", value) and re.search(r"\d", value)
    assert found(scanner, f"the deploy signature is {value} for now") == []


@pytest.mark.parametrize("text", [
    f"see https://wiki.test/pages/{KEY} for the page",
    f"see /srv/keys/{KEY} for the file",
    f"/srv/keys/{KEY} holds the file",
    f" /srv/keys/{KEY} holds the file",
], ids=["url-part", "path-part", "path-at-line-start", "path-after-one-space"])
def test_a_url_or_path_part_is_not_the_rules(scanner: SecretScanner, text: str) -> None:
    assert found(scanner, text) == []


def test_a_url_earlier_on_the_line_does_not_hide_a_key_after_it(scanner: SecretScanner) -> None:
    text = f"docs at https://wiki.test/page and the signature {KEY}"
    assert found(scanner, text) == [("high-entropy-base64", KEY)]


def test_base64_of_readable_text_is_not_the_rules(scanner: SecretScanner) -> None:
    encoded = base64.b64encode(b"This is a perfectly readable sentence, 42 times over.").decode()
    assert found(scanner, f"the text is {encoded} here") == []


@pytest.mark.parametrize("raw, readable", [
    (b"hello world", True),  # 15 characters once its padding is dropped
    (b"tab\tseparated\tcolumns\tand\tcells\tagain", True),
    (b"line one\nline two\nline three\nfour\nfive", True),
    (b"line one\r\nline two\r\nthree\r\nfour\r\n", True),
    (random_bytes(30), False),
    (b"\x7f" * 3 + b"mostly text but dele", False),  # DEL is no printable character
    (b"nineteen printable!" + b"\x01", False),  # 19 of 20 printable: 95% is not above 95%
])
def test_readable_text_is_above_95_percent_printable_bytes(raw: bytes, readable: bool) -> None:
    assert encodes_text(base64.b64encode(raw).decode().rstrip("=")) is readable


def test_a_value_that_is_not_base64_encodes_nothing() -> None:
    encoded = base64.b64encode(b"hello readable world").decode()
    assert encodes_text(encoded) is True
    assert encodes_text(encoded[:8] + "$$" + encoded[8:]) is False


@pytest.mark.parametrize("text, value", [
    ("the password is hunt3r", "hunt3r"),  # six characters: the shortest value taken
    ("the password is h4ckerX.", "h4ckerX"),  # the sentence's full stop is not the password
])
def test_a_password_said_in_prose_is_its_value(scanner: SecretScanner, text: str, value: str) -> None:
    assert found(scanner, text) == [("prose-password", value)]
    assert redact(text, scanner.scan(text)) == text.replace(value, "[redacted:prose-password]")


@pytest.mark.parametrize("text", [
    "the password is k9x2z.",  # five characters once the full stop is dropped
    "the password is !!!!!!!",  # punctuation only
    'secret = "123e4567-e89b-12d3-a456-426614174000"',  # a UUID
    f"![logo](data:image/png;base64,{KEY})",  # an inline image
    "secret: see_the_vault_entry",  # lower-case words after a keyword: no value
    f"sha512:{KEY}",  # a digest whose prefix starts the line
    "postgres://user:password@localhost/db",  # the word a sample URL puts in the secret's place
])
def test_what_the_filters_turn_down(scanner: SecretScanner, text: str) -> None:
    assert found(scanner, text) == []


@pytest.mark.parametrize("text, kind, value", [
    ('label = "aB3dE5gH7jK9mN1pQ2rS4tU6"', "high-entropy-string", "aB3dE5gH7jK9mN1pQ2rS4tU6"),
    ('api_key = "9c4e1a7f3b8d2e6a0f5c9b1d7e3a8f2c"', "secret-keyword",
     "9c4e1a7f3b8d2e6a0f5c9b1d7e3a8f2c"),  # hex is turned down only as a bare quoted string
    ("PuTTY-User-Key-File-2: ssh-rsa", "private-key", "PuTTY-User-Key-File-2"),
    # A URL's secret is one by its place, in lower-case letters too.
    ("DATABASE_URL=postgres://app:letmeinnow@db.internal/app", "basic-auth-credentials",
     "letmeinnow"),
    # Words joined by hyphens after a password word are taken as its value: a diceware
    # passphrase (correct-horse-battery-staple) reads exactly like "stored-in-vault", and a
    # passphrase let through costs more than a sentence a writer rewords.
    ("password: stored-in-vault", "prose-password", "stored-in-vault"),
], ids=["quoted-random-string", "hex-key-after-its-name", "putty-key-file",
        "lower-case-url-secret", "hyphenated-passphrase"])
def test_what_the_filters_let_through(scanner: SecretScanner, text: str, kind: str,
                                      value: str) -> None:
    assert found(scanner, text) == [(kind, value)]


def test_a_finding_is_widened_to_the_whole_token_both_ways(scanner: SecretScanner) -> None:
    """Stripe's rule matches `sk_live_` and 24 characters; the key goes on, and a token may start
    before the rule's prefix: redaction must leave no part of it."""
    token = "acct-sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" + "_more-Tail9"
    text = f"charge with {token} now"
    assert found(scanner, text) == [("stripe-access-key", token)]
    assert redact(text, scanner.scan(text)) == "charge with [redacted:stripe-access-key] now"
    assert found(scanner, f"{token} charges") == [("stripe-access-key", token)]  # from the start


def test_every_row_of_both_corpora_is_judged_as_labelled(scanner: SecretScanner) -> None:
    """As measured (docs/security.md): no labelled credential missed, no look-alike flagged."""
    rows = [json.loads(line) for name in ("secrets_corpus.jsonl", "secrets_heldout.jsonl")
            for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line]
    wrong = [row["text"] for row in rows if bool(scanner.scan(str(row["text"]))) != row["secret"]]
    assert wrong == []
