"""memspace's own credential rules beside detect-secrets' (services/security/secrets.py), and the text the
scanner reads: normalised first, so that a token cannot hide behind characters a reader does not
see or that render like others.

- **Normalised.** Each character is replaced by its NFKC form (full-width `ＡＫＩＡ` reads as
  `AKIA`), and format characters (zero-width spaces and joiners, bidirectional controls, soft
  hyphens) are dropped. Every character of the normalised text knows where it came from, so a
  finding is reported, and redacted, at its place in the text as written.
- **Joined.** A token split over two lines (`ghp_abc…` / `…xyz`) is also read with the line break
  between two token characters taken out; only a finding that spans such a break is kept from
  that reading, so nothing else the scanner says changes.
- **Provider tokens** that detect-secrets 1.5.0 predates or reads only in config-file form: Google
  API keys (`AIza…`), OpenAI project, admin and service-account keys (`sk-proj-…`), Anthropic keys
  (`sk-ant-…`), npm tokens (`npm_…`), GitHub fine-grained tokens (`github_pat_…`), GitLab
  personal tokens (`glpat-…`), Hugging Face tokens (`hf_…`).
- **A password said in prose** ("the root password is hunter2xyz!"): a password word, then is/was/
  `:`/`=`, then a value with a digit or a symbol in it (an all-letter word is prose: "the
  password is stored in Vault"; a path, URL, template or code is not a password either).
- **A bare base64 key**: a token of 32+ characters of the base64 alphabet with upper and lower
  case and digits, and Shannon entropy above 4.5 bits, with no keyword near it. Hex (commit and
  content hashes), UUIDs, digest-prefixed values, a URL's or a path's parts and base64 that
  decodes to readable text are never this rule's.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import unicodedata
from collections import Counter

PROVIDER_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("openai-token", re.compile(r"\bsk-(?:proj|admin|svcacct)-[A-Za-z0-9_\-]{20,}")),
    ("anthropic-token", re.compile(r"\bsk-ant-[a-z0-9]{2,8}-[A-Za-z0-9_\-]{20,}")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20}(?![A-Za-z0-9_\-])")),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z]{34}(?![A-Za-z0-9])")),
)
PROSE_PASSWORD = re.compile(
    r"(?i)\b(?:pass(?:word|phrase|wd)?|pwd|pin code)\b(?:\s+(?:for|of|to|on)(?:\s+[\w.@/:-]+){1,3})?"
    r"\s*(?:(?:is|was|has been)(?:\s+(?:set|changed)\s+to)?|(?:set|changed)\s+to|=|:)"
    r"\s*[\"'`]?(?P<value>[^\s\"'`]{6,})")
BARE_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/_\-=])")
BASE64_ENTROPY = 4.5
TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-+/=]")


def entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def encodes_text(value: str) -> bool:
    """Whether a base64 value decodes to readable text: a key is random bytes, an encoded
    message or document is not a credential."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return bool(raw) and printable / len(raw) > 0.95


def own_findings(line: str) -> list[tuple[str, str]]:
    """(value, kind) for each of memspace's own rules that matches in `line`."""
    found = [(m.group(0), kind) for kind, rule in PROVIDER_TOKENS for m in rule.finditer(line)]
    for match in PROSE_PASSWORD.finditer(line):
        value = match.group("value").rstrip(".,;")
        if (re.search(r"[\d\W_]", value) and not re.fullmatch(r"[\W_]+", value)
                and not re.match(r"[/~.$<{%]|\w+://", value)  # a path, URL or template
                and not re.search(r"[(\[{]", value)):  # code: `password = os.environ[...]`
            found.append((value, "prose-password"))
    for match in BARE_BASE64.finditer(line):
        value = match.group(0)
        word = line[line.rfind(" ", 0, match.start()) + 1:match.end()]
        if (re.search(r"[A-Z]", value) and re.search(r"[a-z]", value) and re.search(r"\d", value)
                and entropy(value) > BASE64_ENTROPY and "://" not in word
                and not word.startswith("/") and not encodes_text(value)):
            found.append((value, "high-entropy-base64"))
    return found


def normalised(text: str) -> tuple[str, list[int]]:
    """The text the scanner reads, and for each of its characters (and its end) the index in
    `text` it came from."""
    if text.isascii():  # nothing to normalise or drop (format characters are not ASCII)
        return text, list(range(len(text) + 1))
    out: list[str] = []
    origin: list[int] = []
    for at, ch in enumerate(text):
        if unicodedata.category(ch) == "Cf":
            continue
        form = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
        out.append(form)
        origin.extend([at] * len(form))
    origin.append(len(text))
    return "".join(out), origin


def joined(text: str) -> tuple[str, list[int]] | None:
    """`text` with each line break between two token characters taken out, and each character's
    index in `text`; None when there is no such break (the common case)."""
    breaks = [m for m in re.finditer(r"\r?\n", text)
              if m.start() > 0 and m.end() < len(text)
              and TOKEN_CHAR.match(text[m.start() - 1]) and TOKEN_CHAR.match(text[m.end()])]
    if not breaks:
        return None
    out: list[str] = []
    origin: list[int] = []
    last = 0
    for brk in breaks:
        out.append(text[last:brk.start()])
        origin.extend(range(last, brk.start()))
        last = brk.end()
    out.append(text[last:])
    origin.extend(range(last, len(text)))
    origin.append(len(text))
    return "".join(out), origin
