"""What code can compare between two memories, so the model is asked only what it cannot be:
the values a text states (numbers, dates, times, versions, names, tools written as names) and
the words it is about.

A language model of the size memspace runs locally cannot tell "same", "replaces" and
"different" apart when asked for one word, but the values a sentence states can be read off it:
two texts that state different values for one frame are not the same fact, whatever their
vectors say ("Maria owns payments" / "Tom owns payments"). Nothing here is tuned to a data set:
the word lists are English function words and number names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from memspace.domain.text import STOP_WORDS, terms, word_tokens

# A token of the text: words with their inner dots, dashes, slashes, colons and digits kept
# whole ("v2.3", "eu-west-1", "10:30", "2026-05-01", "$40k"), a channel's # or a handle's @.
_TOKEN = re.compile(r"[#@]?[\w$€£][\w$€£.:/+\-%]*[\w%]|[\w$€£]")

# Spellings of one value written one way before tokens are read: clock times as HH:MM ("2pm",
# "2 p.m.", "14:00" and "02:30"/"2:30" alike), a time range split at its dash, dates as
# YYYY-MM-DD ("14 March 2026", "March 14, 2026"), "percent" as %.
_MONTHS = ("january february march april may june july august september october november "
           "december").split()
_AMPM = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?", re.IGNORECASE)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_RANGE = re.compile(r"(\d{2}:\d{2})[-–](\d{1,2}:\d{2})")
_MONTH = "(" + "|".join(m.capitalize() for m in _MONTHS) + r")"
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? " + _MONTH + r",? (\d{4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b" + _MONTH + r" (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b")
_PERCENT = re.compile(r"(\d)\s*(?:per ?cent|pct)\b", re.IGNORECASE)


def _ampm(match: re.Match[str]) -> str:
    hour, minutes, half = int(match[1]), match[2] or "00", match[3].lower()
    hour = hour % 12 + (12 if half == "p" else 0)
    return f" {hour:02d}:{minutes} "


def _iso(day: str, month: str, year: str) -> str:
    return f"{year}-{_MONTHS.index(month.lower()) + 1:02d}-{int(day):02d}"


def canonical(text: str) -> str:
    """The text with one spelling per time, date and percentage (the rest as written)."""
    text = _AMPM.sub(_ampm, text)
    text = _CLOCK.sub(lambda m: f"{int(m[1]):02d}:{m[2]}", text)
    text = _RANGE.sub(lambda m: f"{m[1]} - {m[2]}", text)
    text = _DAY_MONTH_YEAR.sub(lambda m: _iso(m[1], m[2], m[3]), text)
    text = _MONTH_DAY_YEAR.sub(lambda m: _iso(m[2], m[1], m[3]), text)
    return _PERCENT.sub(r"\1%", text)

# Capitalised words that start sentences or name nothing: never taken for a name.
_NOT_NAMES = frozenset(
    "a an the we our us it its this that these those they their there here he she his her i "
    "my me you your all any each every some no not none new now today then also and or but so "
    "if when while after before since until from to in on at by for with of as is are was were "
    "be been has have had do does did will would can could should must may might one two "
    "everyone nobody someone anything everything nothing please note yes".split())

_NUMBER_NAMES = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
}

_WEEKDAYS_MONTHS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december".split())


def has_digit(word: str) -> bool:
    """A number however it is written ("3", "£3", "2026-03-14", "v2")."""
    return any(c.isdigit() for c in word)


def _fold(token: str) -> str:
    """One spelling per value: case-folded, a plural's or possessive's s dropped, number names
    as digits, thousands separators out."""
    word = token.casefold().strip(".:/-+")
    word = _NUMBER_NAMES.get(word, word)
    if word.endswith("'s"):
        word = word[:-2]
    if has_digit(word):
        return word.replace(",", "")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


@dataclass(frozen=True)
class Reading:
    """A text as the rules compare it: its values, every word it says (folded, so a value of
    one text is found among another's words), and its content terms (stems, no stop words)."""

    values: frozenset[str]
    words: frozenset[str]
    terms: frozenset[str]


@lru_cache(maxsize=8192)
def read(original: str) -> Reading:
    text = canonical(original)
    values: set[str] = set()
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        folded = _fold(token)
        if not folded:
            continue
        plain = token.casefold()
        if _is_value(token, plain):
            values.add(folded)
    said = {_fold(t) for t in word_tokens(text)} | {_fold(m.group(0)) for m in _TOKEN.finditer(text)}
    return Reading(frozenset(values), frozenset(said), frozenset(terms(text)))


def _is_value(token: str, plain: str) -> bool:
    """A number, a day or month, a name (capitalised, not a function word), or an identifier
    or CamelCase name."""
    if plain == "may":  # the month only when written as a name
        return token[0].isupper()
    return (has_digit(token) or plain in _NUMBER_NAMES
            or plain in _WEEKDAYS_MONTHS or token[0] in "#@"
            or (token[0].isupper() and plain not in _NOT_NAMES)
            or any(c in token for c in ".:/_") or token[1:] != token[1:].lower())


def _said(value: str, words: frozenset[str]) -> bool:
    """Does a text with these words say the value (a dashed one: each of its parts)?"""
    return value in words or value.lstrip("#@") in words or (
        "-" in value and all(part in words for part in value.lstrip("#@").split("-") if part))


def unmatched(a: Reading, b: Reading) -> frozenset[str]:
    """The values `a` states that `b` does not say at all."""
    return frozenset(v for v in a.values if not _said(v, b.words))


def values_differ(old: str, new: str) -> bool:
    """Each text states a value the other does not say: a new value for something, or another
    thing altogether (which the model then tells apart)."""
    a, b = read(old), read(new)
    return bool(unmatched(a, b)) and bool(unmatched(b, a))


def values_agree(a_text: str, b_text: str) -> bool:
    """No value of either is missing from the other: the two say the same numbers, names and
    dates (one may say fewer words)."""
    a, b = read(a_text), read(b_text)
    return not unmatched(a, b) and not unmatched(b, a)


def names_the_change(old: str, new: str, old_named: str, new_named: str) -> bool:
    """Are the values a reader named for a change ("Sentry" -> "Datadog") the ones the texts
    differ by: the older's named words say a value only the older states, the newer's a value
    only the newer states? "online through Stripe" -> "full fee", named for "… less than 24
    hours' notice are now charged the full fee", names no value of the newer's own: the change
    named is not between the two texts' values."""
    a, b = read(old), read(new)
    return (any(_said(v, read(old_named).words) for v in unmatched(a, b))
            and any(_said(v, read(new_named).words) for v in unmatched(b, a)))


def same_text(a: str, b: str) -> bool:
    """The same words in the same order, whatever the case, spacing and punctuation."""
    return word_tokens(a) == word_tokens(b)


def richer(a_text: str, b_text: str) -> bool:
    """Does `a` say more than `b`: more values, then more content terms?"""
    a, b = read(a_text), read(b_text)
    return (len(a.values), len(a.terms)) > (len(b.values), len(b.terms))


def content_terms(text: str) -> frozenset[str]:
    return frozenset(t for t in read(text).terms if t not in STOP_WORDS)


# Share of two texts' words that must line up, in order, for them to read as one sentence with
# something swapped ("The staging cluster runs in eu-west-1" / "The production cluster runs in
# eu-west-1") rather than two ways of saying something.
PARALLEL = 0.6


@lru_cache(maxsize=8192)
def swapped(a_text: str, b_text: str) -> frozenset[str]:
    """The content words swapped between two texts that are otherwise the same sentence: each
    place where one says a word the other says another instead. Empty when the texts are not
    parallel (a paraphrase) or differ only in function words, punctuation or added words."""
    a = word_tokens(canonical(a_text))
    b = word_tokens(canonical(b_text))
    if not a or not b:
        return frozenset()
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    lined_up = sum(block.size for block in matcher.get_matching_blocks())
    if 2 * lined_up / (len(a) + len(b)) < PARALLEL:
        return frozenset()
    out: set[str] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        left = {_fold(w) for w in a[i1:i2] if w not in STOP_WORDS}
        right = {_fold(w) for w in b[j1:j2] if w not in STOP_WORDS}
        if left and right and left != right:
            out |= left ^ right
    return frozenset(out)


def swaps_subject(a_text: str, b_text: str, naming_nothing: frozenset[str] = frozenset()) -> bool:
    """One sentence with a word swapped that is no value: what it is about may be another thing
    ("staging" / "production"), which only a reader can tell from a new value for it. Words in
    `naming_nothing` ("raised" in "is 600" / "was raised to 1,200") are not taken for one."""
    values = read(a_text).values | read(b_text).values
    # A number is a value however it was written ("£3" is read whole, swapped as "3").
    return any(w not in values and w not in _NOT_NAMES and w not in naming_nothing
               and not has_digit(w) for w in swapped(a_text, b_text))


# The auxiliaries and forms of "to be" that end a plain English sentence's subject ("The staging
# cluster | runs" has none: only sentences with one of these are read for their subject).
_AUXILIARIES = frozenset(
    "is are was were be been am has have had will would must can could should may might does do "
    "did".split())


def subject_terms(text: str) -> frozenset[str] | None:
    """The content terms before the sentence's first auxiliary ("The east stairwell | is
    closed…": east, stairwel), None when it has none or nothing stands before it."""
    tokens = word_tokens(text)
    for i, token in enumerate(tokens):
        if token in _AUXILIARIES:
            head = frozenset(terms(" ".join(tokens[:i])))
            return head or None
    return None


def other_subjects(a_text: str, b_text: str) -> bool:
    """Both sentences name what they are about before an auxiliary, and those words share
    nothing: "The east stairwell is closed on Mondays" / "The north lift is closed every
    Monday" speak of two things, however alike the rest reads. A paraphrase that turns the
    sentence round ("X is owned by Maya" / "Maya is X's owner") reads as two subjects too: it is
    left for a person rather than folded."""
    a, b = subject_terms(a_text), subject_terms(b_text)
    return a is not None and b is not None and not a & b

