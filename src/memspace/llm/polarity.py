"""Does a fact contradict the content it was extracted from? Lost negations, revived old values
and reversed directions, found lexically (part of the grounding guard, llm/grounding.py).

A text is cut into clauses (punctuation, "and", "but", "because", ...). A *scope* is the few
terms after a cue:
- negation ("not", "never", "no", "no longer", "n't", "nobody", "without"): the next three
  terms; the claim is negated only as a whole, so a fact contradicts it by stating all of them;
- ending ("dropped", "stopped", "removed", "replaced", "cancelled", "off", "instead of",
  "rather than", "away from", "from X to Y"'s X): the next two terms up to a preposition; any of
  them is an old value, unless the content also states it outside every scope;
- the new value: Y of "from X to Y".

A fact clause with no cue of its own *affirms* its terms. The fact contradicts the content when
it affirms a negated claim or an old value, marks as ended a new value ("from Rollbar to
Sentry" when the content moved from Sentry to Rollbar), or negates a claim the content states.
"""

from __future__ import annotations

from dataclasses import dataclass

from memspace.llm.lexicon import terms, tokens

NEGATIONS = frozenset("not never no nobody nothing none cannot without neither nor".split())
ENDINGS = frozenset(
    "drop drops dropped dropping stop stops stopped stopping remove removes removed removing "
    "retire retires retired retiring deprecate deprecates deprecated abandon abandons abandoned "
    "ditch ditched ditches disable disables disabled cancel cancels cancelled canceled "
    "scrap scrapped scraps replace replaces replaced replacing sunset sunsetted discontinue "
    "discontinued decommission decommissioned off".split())
# Two-word cues: the first word, then what must follow it.
ENDING_PAIRS = {"instead": "of", "rather": "than", "away": "from", "rid": "of"}
# Words that say something changed: a fact repeating a candidate word for word then repeats the
# old state (grounding.py).
CHANGES = frozenset(
    "switched switch changed change changes moved move moves migrated migrate replaced replaces "
    "upgraded downgraded raised lowered increased decreased reduced cut extended shortened "
    "slipped pushed postponed delayed rescheduled renamed handing handed now anymore instead "
    "longer".split())
# More words that say a state changed, for signals_change (not for the clause-level checks).
CHANGE_EXTRA = frozenset(
    "correction actually updated update closed shut left joined became becomes took takes "
    "pushing moving switching starting ending".split())
# Words that make a clause speak of the past, so its terms are not affirmed as current.
PAST = frozenset("previously formerly former earlier used".split())
BOUNDARIES = frozenset(".,;:!?()") | frozenset(
    "and but because while whereas although though so however".split())
PREPOSITIONS = frozenset("for in on at with by as from of to into since until".split())
NEGATION_REACH = 3
ENDING_REACH = 2


@dataclass(frozen=True)
class Scope:
    kind: str  # "negated", "ended" or "new"
    terms: frozenset[str]


@dataclass(frozen=True)
class Reading:
    scopes: tuple[Scope, ...]
    plain: tuple[frozenset[str], ...]  # the terms of each clause without any cue

    def of(self, kind: str) -> list[frozenset[str]]:
        return [s.terms for s in self.scopes if s.kind == kind and s.terms]


def _is_negation(token: str) -> bool:
    return token in NEGATIONS or token.endswith(("n't", "n’t"))


def _clauses(words: list[str]) -> list[list[str]]:
    clauses: list[list[str]] = [[]]
    for word in words:
        if word in BOUNDARIES:
            clauses.append([])
        else:
            clauses[-1].append(word)
    return [c for c in clauses if c]


def _scope(words: list[str], start: int, reach: int, stop_at: frozenset[str]) -> frozenset[str]:
    found: set[str] = set()
    for word in words[start:]:
        if word in stop_at:
            break
        new = terms(word)
        found |= new
        if len(found) >= reach:
            break
    return frozenset(found)


def _read_clause(words: list[str]) -> tuple[list[Scope], bool]:
    """The scopes of one clause, and whether it has any cue at all."""
    scopes: list[Scope] = []
    cued = False
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "no" and following == "longer":
            scopes.append(Scope("negated", _scope(words, i + 2, NEGATION_REACH, frozenset())))
            cued = True
        elif _is_negation(word):
            scopes.append(Scope("negated", _scope(words, i + 1, NEGATION_REACH, frozenset())))
            cued = True
        elif word in ENDINGS:
            scopes.append(Scope("ended", _scope(words, i + 1, ENDING_REACH, PREPOSITIONS)))
            cued = True
        elif ENDING_PAIRS.get(word) == following:
            scopes.append(Scope("ended", _scope(words, i + 2, ENDING_REACH, PREPOSITIONS)))
            cued = True
        elif _moves(words, i):
            to = words.index("to", i + 1)
            old = _scope(words[:to], i + 1, ENDING_REACH, PREPOSITIONS)
            new = _scope(words, to + 1, ENDING_REACH, PREPOSITIONS)
            scopes += [Scope("ended", old), Scope("new", new)]
            cued = True
        elif word in PAST:
            cued = True
    return scopes, cued


def _moves(words: list[str], i: int) -> bool:
    """Is words[i] the "from" of a "from X to Y" that moves a value, not a range ("from
    2026-05-04 to 2026-05-15", "from 9:00 to 17:00")?"""
    if words[i] != "from" or "to" not in words[i + 1:]:
        return False
    to = words.index("to", i + 1)
    ends = _scope(words[:to], i + 1, ENDING_REACH, PREPOSITIONS) | _scope(
        words, to + 1, ENDING_REACH, PREPOSITIONS)
    return not all(t[:1].isdigit() for t in ends)


def read(text: str) -> Reading:
    scopes: list[Scope] = []
    plain: list[frozenset[str]] = []
    for clause in _clauses(tokens(text)):
        found, cued = _read_clause(clause)
        scopes += found
        if not cued:
            plain.append(frozenset(terms(" ".join(clause))))
    return Reading(tuple(scopes), tuple(plain))


def contradiction(fact: str, content: str, known: set[str] | None = None) -> str | None:
    """Why `fact` says the opposite of `content`, or None. `known`: the candidates' terms."""
    said, claimed = read(content), read(fact)
    also_stated = set().union(*said.plain) if said.plain else set()
    for negated in said.of("negated"):
        if any(negated <= clause for clause in claimed.plain):
            return f"it drops a negation: the content says no/not to '{' '.join(sorted(negated))}'"
    # "Error tracking used Sentry; it moved to Rollbar" names the old value beside the change.
    tells_change = _tells_change(fact, claimed) and bool(
        terms(fact) & (terms(content) - (known or set())))
    for ended in [] if tells_change else said.of("ended"):
        old = ended - also_stated
        hit = sorted(t for t in old if any(t in clause for clause in claimed.plain))
        if hit:
            return f"it states as current what the content says has ended ({', '.join(hit)})"
    new_values = set().union(*said.of("new")) if said.of("new") else set()
    new_values -= set().union(*said.of("ended")) if said.of("ended") else set()
    for ended in claimed.of("ended"):
        if ended & new_values:
            return f"it reverses the direction of the change ({', '.join(sorted(ended & new_values))})"
    for negated in claimed.of("negated"):
        if any(negated <= clause for clause in said.plain):
            return f"it negates what the content states ('{' '.join(sorted(negated))}')"
    return None


def _tells_change(text: str, reading: Reading) -> bool:
    """Does the text itself speak of a change (a cue of ending, change or direction)?"""
    return bool(reading.scopes) or bool(CHANGES & set(tokens(text)))


def announces_change(fact: str, content: str) -> bool:
    """Does the content's clause closest to `fact` say something changed ("switched to", "now",
    "from A to B")?"""
    fact_terms = terms(fact)
    clauses = _clauses(tokens(content))
    if not clauses:
        return False
    closest = max(clauses, key=lambda c: len(fact_terms & terms(" ".join(c))))
    return bool(CHANGES & set(closest)) or any(_moves(closest, i) for i in range(len(closest)))


def signals_change(content: str) -> bool:
    """Does the content say anything changed, anywhere: a word of change or ending, a negation,
    "from A to B"?"""
    words = tokens(content)
    return bool((CHANGES | ENDINGS | CHANGE_EXTRA) & set(words)) or any(
        _is_negation(w) or _moves(words, i) for i, w in enumerate(words))
