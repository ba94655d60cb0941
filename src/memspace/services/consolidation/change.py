"""Whether a text says that something changed ("the fire drill was moved to Thursday", "the
canteen now opens at 08:00", "Olga took over the print shop"), read in code.

A replacement said as a plain add is the same fact with a new value, and an agent writing it
nearly always says so. A bare different value ("Builds run on Buildkite" beside "Builds run on
Jenkins") is as often a contradiction or a mistake as a change: the pass with a model does not
retire on it (without a model every such pair is queued). The add's own extraction call already
saw such a pair and did not call it an update, so asking it again the same way tells the pass
nothing new; what is read here only lets the pass put the question to the model's second look,
which still has to agree.

The words are English adverbs of a new state and the past forms of verbs of change (present
forms are left out: "the rota changes every Monday" is a schedule, not a change)."""

from __future__ import annotations

from functools import lru_cache

from memspace.domain.text import word_tokens
from memspace.services.consolidation.values import (
    content_terms,
    has_digit,
    other_subjects,
    swaps_subject,
    values_differ,
)

# Words that by themselves say the state is new or has ended.
_NEW_STATE = frozenset(
    "now anymore henceforth formerly previously newly instead since nowadays".split())

# Past forms of verbs that report a change of value, owner, place, time or tool.
_CHANGED = frozenset("""
    changed moved switched replaced upgraded downgraded migrated raised lowered increased
    decreased reduced extended shortened widened narrowed expanded grew grown rose risen fell
    fallen dropped doubled halved tripled postponed delayed rescheduled renamed relocated
    reassigned transferred updated revised adjusted bumped swapped converted shifted amended
    retired deprecated discontinued ended stopped became become cancelled canceled reverted
    restructured reorganised reorganized relaunched rebranded superseded overtook
    """.split())

# Verbs that report a change only with the particle after them ("took over", "went up",
# "pushed back", "brought forward", "handed over", "gone down").
_WITH_PARTICLE = {
    "took": {"over"}, "taken": {"over"}, "handed": {"over"}, "went": {"up", "down"},
    "gone": {"up", "down"}, "pushed": {"back", "out"}, "brought": {"forward"},
    "moved": {"up"}, "stepped": {"down", "in"}, "phased": {"out"},
}


# What a sentence says to report a change names nothing it is about: a swap of "is" for "was
# raised" is a new value, not another thing.
CHANGE_WORDS = _NEW_STATE | _CHANGED | frozenset(_WITH_PARTICLE) | frozenset(
    word for particles in _WITH_PARTICLE.values() for word in particles)


@lru_cache(maxsize=8192)
def states_change(text: str) -> bool:
    """Does the text say a value changed (or a state ended), rather than simply state it?"""
    tokens = word_tokens(text)
    for i, token in enumerate(tokens):
        if token in _NEW_STATE or token in _CHANGED:
            return True
        if token == "longer" and i > 0 and tokens[i - 1] == "no":
            return True
        if tokens[i + 1:i + 2] and tokens[i + 1] in _WITH_PARTICLE.get(token, ()):
            return True
    return False


def said_changed(old: str, new: str, similarity: float, update_floor: float) -> bool:
    """The newer says a value changed, and code reads a new value of the same thing: each
    states a value the other does not, close enough to be about one thing, a word in common
    that is no number (a new value of a thing names the thing), nothing but values swapped
    and no two subjects."""
    if similarity < update_floor or not states_change(new):
        return False
    shared = content_terms(old) & content_terms(new)
    return (any(term not in CHANGE_WORDS and not has_digit(term) for term in shared)
            and values_differ(old, new)
            and not swaps_subject(old, new, CHANGE_WORDS)
            and not other_subjects(old, new))
