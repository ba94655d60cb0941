"""Writes that read like instructions aimed at an agent (docs/security.md): flagged `suspicious` at write
time, because whatever one agent stores every agent with the space reads back into its context.

Four families, each a short list of patterns (no model: a flag must be cheap, deterministic and
explainable): phrases that address the reading model ("ignore previous instructions", "you are
now", "new system prompt"), tool-call syntax (`<tool_call>`, `{"name": …, "arguments": …}`,
`<function=…>`), chat role markers at the start of a line (`system:`, `<|im_start|>`, `[INST]`,
`### Assistant`), and characters a reader cannot see (zero-width, bidirectional overrides,
Unicode tag characters). bench/data/injections.jsonl measures them on injections and benign
look-alikes (bench/bench_injections.py).
"""

from __future__ import annotations

import re
import unicodedata

_ADDRESSING = re.compile(
    r"(?i)\b(ignore|disregard|forget|override|bypass|discard|set aside)\b[^.\n]{0,40}\b(previous|"
    r"prior|above|earlier|all|your|the system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|"
    r"guidelines|guidance|directions|context)\b"
    r"|\b(ignore|disregard|forget|discard)\b[^.\n]{0,20}\b(everything|anything|all)\b[^.\n]{0,10}"
    r"\b(above|before|earlier|previously|so far)\b"
    r"|\bpay no attention to\b[^.\n]{0,40}\b(told|said|instructions|above|before)\b"
    r"|\byou are now\b|\bfrom now on,? you\b|\bnew (system )?(instructions|prompt)\s*:"
    r"|\b(reveal|print|output|show)\b[^.\n]{0,30}\b(system prompt|api key|secret|credentials)\b"
    r"|\bdo not (tell|inform) the user\b|\bwithout (telling|asking) the user\b"
    r"|\bas an ai (assistant|model)\b[^.\n]{0,30}\b(must|should|will)\b")
_TOOL_CALL = re.compile(
    r"(?i)<\s*/?\s*(tool_call|function_call|function_calls|invoke|tool_use|antml:[a-z_]+)\b"
    r"|<function=|\"(name|tool)\"\s*:\s*\"[\w.-]+\"\s*,\s*\"(arguments|parameters|input)\"\s*:"
    r"|\btool_calls\b\s*[:=]|\bcall the (tool|function)\b[^.\n]{0,40}\b(add_memory|forget|"
    r"correct_memory|save_handoff|delete)")
_ROLE_MARKER = re.compile(
    r"(?im)^\s*(system|assistant|developer)\s*:|<\|(im_start|im_end|system|assistant|user|"
    r"endoftext|eot_id|start_header_id)\|>|\[/?INST\]|<</?SYS>>|^\s*#{2,}\s*(system|assistant)"
    r"\b|<\s*/?\s*(system|assistant)\s*>")
# A link that runs script where it is rendered (a view, a Markdown preview).
_SCRIPT_LINK = re.compile(r"(?i)\b(javascript|vbscript)\s*:")
_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                     "\U000e0000-\U000e007f]")

FAMILIES = (("instructions addressed to an agent", _ADDRESSING), ("tool-call syntax", _TOOL_CALL),
            ("a chat role marker", _ROLE_MARKER), ("a script link", _SCRIPT_LINK),
            ("hidden Unicode characters", _HIDDEN))
# Letters of other scripts that render like Latin ones (Cyrillic and Greek look-alikes): `ѕуѕtеm:`
# must read as the role marker it looks like.
_LOOK_ALIKES = str.maketrans(
    "аеорсухѕіјԁһӏкмнтвАВЕКМНОРСТХЅІЈοαερτνκιΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
    "aeopcyxsijdhlkmhtbABEKMHOPCTXSIJoaeptvkiABEHIKMNOPTXYZ")
_LINE_BREAKS = re.compile("[\r\u2028\u2029\u0085\u000b\u000c]")


def readable(text: str) -> str:
    """The text as a reader sees it: full-width and other compatibility forms as their plain
    letters (NFKC), look-alike letters of other scripts as Latin, every line break as `\\n`."""
    plain = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)
    return _LINE_BREAKS.sub("\n", plain)


def suspicious_reason(text: str) -> str | None:
    """Why `text` reads like instructions to an agent (the families found), or None. Matched on
    the text as it reads, so look-alike letters and other line breaks do not hide a pattern."""
    plain = readable(text)
    found = [name for name, pattern in FAMILIES
             if pattern.search(text if pattern is _HIDDEN else plain)]
    return ", ".join(found) if found else None
