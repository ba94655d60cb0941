"""Strings and comments of brace-language source blanked out (same length, newlines kept), so
that braces inside them do not count when chunkers.py looks for block boundaries."""

from __future__ import annotations


def mask_brace_source(text: str) -> str:
    out = list(text)
    i, n = 0, len(text)

    def blank(lo: int, hi: int) -> None:
        for k in range(lo, min(hi, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c in "\"`" or (c == "'" and _char_literal(text, i)):
            end = _string_end(text, i, c)
            blank(i, end)
            i = end
        else:
            i += 1
    return "".join(out)


def _char_literal(text: str, i: int) -> bool:
    """A `'` that opens a quoted string rather than a Rust lifetime (`'a`): it closes on its line."""
    close = text.find("'", i + 1)
    line_end = text.find("\n", i + 1)
    return close > 0 and (line_end < 0 or close < line_end)


def _string_end(text: str, i: int, quote: str) -> int:
    """Index just past the string opened at `i` (a non-template string stops at the line's end)."""
    k, n = i + 1, len(text)
    while k < n:
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == quote:
            return k + 1
        if c == "\n" and quote != "`":
            return k
        k += 1
    return n
