"""Finding credentials in text, with Yelp's detect-secrets (pinned in pyproject.toml).

Why detect-secrets: it is maintained, pure Python (no binary to ship), its rules are versioned
with the package (pinning the version pins the rules), and its plugins can be run on a string
in process without its global settings or a file. The plugins used are its provider detectors
(AWS, Azure storage, GitHub, GitLab, Slack, Stripe, Twilio, SendGrid, OpenAI, npm, PyPI,
Discord, Telegram, Mailchimp, Square, IBM, SoftLayer, Cloudant, Artifactory), its private-key,
JWT and basic-auth-in-URL detectors, its secret-keyword detector (`password = …`, `api_key: …`)
and its base64 high-entropy detector on quoted values. Its hex high-entropy detector is left
out: commit shas and content hashes are hex and would all be flagged. Its IPv4 detector is
left out: an address is not a credential.

Beside the library, rules of memspace's own: a whole PEM block (BEGIN … END) is one finding
(the library marks the BEGIN line only, and redaction must remove the key), an assignment to a
name that says token/secret/key/password/credential whose unquoted value is long and
high-entropy (`SESSION_TOKEN=…`), which the keyword detector's list does not cover, and those
of services/security/secret_rules.py (newer provider tokens, a password said in prose, a bare base64
key), which also makes the text the scanner reads: normalised, and with split tokens joined. Near-misses
are dropped with detect-secrets' own heuristics (UUIDs, sequential strings, templates like
`${VAR}` or `<token>`) and with documented example values (`…EXAMPLE…`, `xxxx`, `your-…`).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memspace.services.security.secret_rules import joined, normalised, own_findings

if TYPE_CHECKING:  # detect-secrets (and requests, which it imports) load on the first scan
    from detect_secrets.plugins.base import BasePlugin

SCANNER_VERSION = "detect-secrets 1.5.0"
# Every detect-secrets plugin name used, by module path (pinned with the package version).
PLUGINS = (
    ("artifactory", "ArtifactoryDetector"), ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"), ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"), ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"), ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"), ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"), ("keyword", "KeywordDetector"),
    ("mailchimp", "MailchimpDetector"), ("npm", "NpmDetector"), ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"), ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"), ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"), ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"), ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)
# The keyword detector's unquoted forms (`password: x`, `DB_PASS=x`) are its YAML/.env rules.
KEYWORD_FILE = "memory.yaml"
OTHER_FILE = "memory.txt"
PEM_BLOCK = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----.*?"
                       r"(-----END[A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----|\Z)", re.S)
ENTROPY_ASSIGNMENT = re.compile(
    r"(?i)\b[\w.-]*(token|secret|passw(or)?d|api[_-]?key|access[_-]?key|private[_-]?key|"
    r"credential|auth)[\w.-]*\s*[:=]\s*['\"]?([A-Za-z0-9+/_\-.~=]{16,})")
PLACEHOLDER = re.compile(r"(?i)example|x{4,}|\*{4,}|\.{3}|your[-_]|^<.*>$|^\$|changeme|"
                         r"redacted|placeholder|dummy")
URL_PLACEHOLDERS = {"password", "passwd", "pass", "pwd", "secret", "token"}
# Subresource-integrity and digest prefixes: what follows is a hash, not a credential.
DIGEST_PREFIX = re.compile(r"(sha(1|256|384|512)[-:]|md5[-:])(?=[A-Za-z0-9+/=]*$)", re.I)
ENTROPY_LIMIT = 4.0
# What a line must hold for any rule to match: a run of 16 token characters (every provider
# token, key and high-entropy value is one), or a word that keyword, prose-password, URL
# credential and private-key rules start from. A line without either is not scanned further.
CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/=.~]{16,}|(?i:pass|pwd|secret|token|key|auth|credential"
                       r"|private|cred|pin\b|://|@)")


@dataclass(frozen=True)
class SecretFinding:
    """One credential: its kind (a slug such as `aws-access-key`), where it is (1-based line,
    0-based character offsets into the text) and never the value itself."""

    kind: str
    line: int
    start: int
    end: int

    @property
    def where(self) -> str:
        return f"line {self.line}, characters {self.start + 1}-{self.end}"


def _kind(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _load_plugins() -> list[BasePlugin]:
    from importlib import import_module

    return [getattr(import_module(f"detect_secrets.plugins.{module}"), name)()
            for module, name in PLUGINS]


class SecretScanner:
    """Stateless apart from the plugin objects (built once; their regexes are compiled)."""

    def __init__(self) -> None:
        from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

        self._plugins = _load_plugins()
        self._entropy = Base64HighEntropyString(limit=4.5)
        self._lock = threading.Lock()  # the plugins read detect-secrets' settings singleton

    def scan(self, text: str) -> list[SecretFinding]:
        """Every credential in `text`, in order, overlapping findings merged. The text is read
        normalised, and once more with tokens split over lines joined (services/security/secret_rules.py);
        findings are placed in `text` as written."""
        norm, origin = normalised(text)
        spans = [(origin[s], origin[e - 1] + 1, k) for s, e, k in self._spans(norm)]
        glued = joined(norm)
        if glued is not None:
            glued_text, glued_origin = glued
            for s, e, kind in self._spans(glued_text):
                first, last = glued_origin[s], glued_origin[e - 1]
                if last - first != e - 1 - s:  # the finding spans a line break taken out
                    spans.append((origin[first], origin[last] + 1, kind))
        return _merged(text, spans)

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        for block in PEM_BLOCK.finditer(text):
            spans.append((block.start(), block.end(), "private-key"))
        offset = 0
        with self._lock:
            for line in text.split("\n"):
                for value, kind in self._values(line):
                    spans.extend((offset + s, offset + e, kind)
                                 for s, e in _located(line, value, kind != "private-key"))
                offset += len(line) + 1
        return spans

    def _values(self, line: str) -> list[tuple[str, str]]:
        if not CANDIDATE.search(line):  # nothing any rule could match: most lines of prose
            return []
        found: list[tuple[str, str]] = []
        for plugin in self._plugins:
            name = KEYWORD_FILE if plugin.secret_type == "Secret Keyword" else OTHER_FILE
            for secret in plugin.analyze_line(filename=name, line=line, line_number=1):
                value = str(secret.secret_value)
                if len(value) < 8:  # a rule whose group is the token's prefix (ghp_…): whole match
                    found.extend((m.group(0), _kind(plugin.secret_type))
                                 for rule in getattr(plugin, "denylist", ())
                                 for m in rule.finditer(line) if m.group(0).startswith(value))
                else:
                    found.append((value, _kind(plugin.secret_type)))
        for secret in self._entropy.analyze_line(filename=OTHER_FILE, line=line, line_number=1):
            found.append((str(secret.secret_value), "high-entropy-string"))
        found.extend(own_findings(line))
        for match in ENTROPY_ASSIGNMENT.finditer(line):
            value = match.group(3)
            if self._entropy.calculate_shannon_entropy(value) > ENTROPY_LIMIT:
                found.append((value, "high-entropy-assignment"))
        return [(v, k) for v, k in found if _plausible(v, line, k)]


def _plausible(value: str, line: str, kind: str) -> bool:
    """False for what detect-secrets' heuristics or documented examples say is no secret."""
    from detect_secrets.filters import heuristic

    if kind == "private-key":
        return True
    if len(value) < 6 or PLACEHOLDER.search(value):
        return False
    if heuristic.is_potential_uuid(value) or heuristic.is_sequential_string(value):
        return False
    if heuristic.is_templated_secret(value) or heuristic.is_prefixed_with_dollar_sign(value):
        return False
    if kind == "secret-keyword" and (
            re.fullmatch(r"[a-z/_.\-]+", value) or re.search(r"\s|[()\[\]{}]", value)):
        return False  # "password: reset via …", "password@localhost", a path, code: not a value
    # In `scheme://user:secret@host` the secret is one by its place, lower-case letters or not
    # (`letmeinnow`); only the word a sample URL puts there is not.
    if kind == "basic-auth-credentials" and (
            value.lower() in URL_PLACEHOLDERS or re.search(r"\s|[()\[\]{}]", value)):
        return False
    at = line.find(value)
    if DIGEST_PREFIX.match(value) or (at > 0 and DIGEST_PREFIX.search(line[max(0, at - 7):at])):
        return False
    if re.search(r"data:[\w/+.-]+;base64,", line) and kind.startswith("high-entropy"):
        return False  # an inline image
    return not re.fullmatch(r"[0-9a-f]{32,64}", value) or kind != "high-entropy-string"


def _located(line: str, value: str, whole: bool = False) -> list[tuple[int, int]]:
    """Where `value` is in `line`; with `whole`, each place widened to the whole token around it
    (a rule that matches a key's first 24 characters must not leave the rest of it behind)."""
    spans, start = [], line.find(value)
    while start >= 0 and value:
        end = start + len(value)
        first = start
        if whole:
            while end < len(line) and (line[end].isalnum() or line[end] in "_-"):
                end += 1
            while first > 0 and (line[first - 1].isalnum() or line[first - 1] in "_-"):
                first -= 1
        spans.append((first, end))
        start = line.find(value, start + len(value))
    return spans


def _merged(text: str, spans: list[tuple[int, int, str]]) -> list[SecretFinding]:
    out: list[list[Any]] = []
    for start, end, kind in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
            continue
        out.append([start, end, kind])
    return [SecretFinding(kind, text.count("\n", 0, start) + 1, start, end)
            for start, end, kind in out]


def redact(text: str, findings: list[SecretFinding]) -> str:
    """`text` with each finding replaced by `[redacted:<kind>]`."""
    parts, last = [], 0
    for f in findings:
        parts.append(text[last:f.start])
        parts.append(f"[redacted:{f.kind}]")
        last = f.end
    parts.append(text[last:])
    return "".join(parts)
