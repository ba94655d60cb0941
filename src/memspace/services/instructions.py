"""Writes that read like instructions aimed at an agent (issue 38): flagged `suspicious` at write
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

_ADDRESSING = re.compile(
    r"(?i)\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(previous|prior|above|"
    r"earlier|all|your|the system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|guidelines|"
    r"directions|context)\b"
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
_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                     "\U000e0000-\U000e007f]")

FAMILIES = (("instructions addressed to an agent", _ADDRESSING), ("tool-call syntax", _TOOL_CALL),
            ("a chat role marker", _ROLE_MARKER), ("hidden Unicode characters", _HIDDEN))


def suspicious_reason(text: str) -> str | None:
    """Why `text` reads like instructions to an agent (the families found), or None."""
    found = [name for name, pattern in FAMILIES if pattern.search(text)]
    return ", ".join(found) if found else None
