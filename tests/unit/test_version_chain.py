"""version_checks.py walks a fact's chain of corrections through MemoryReadStore alone, so a fake of
that one role can hold chains a real store never would (a loop left by corrupt data)."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest

from memspace.domain.errors import Conflict, StaleVersion
from memspace.domain.models import Memory
from memspace.services.shared import version_checks
from memspace.services.shared.version_checks import check_version
from tests.support import builders as b
from tests.support.role_fakes import MemoryReads

SPACE = "space-1"


def _chain(length: int) -> list[Memory]:
    """v1 -> v2 -> ... -> v<length>, each superseded by the next; the last is current."""
    made = [replace(b.memory(SPACE, f"fact, version {n}"), version=n) for n in range(1, length + 1)]
    return [replace(old, active=False, invalidated_by=new.id)
            for old, new in pairwise(made)] + made[-1:]


def test_the_head_of_a_chain_is_its_current_version() -> None:
    chain = _chain(4)
    assert version_checks.head_of(MemoryReads(*chain), SPACE, chain[0]) == chain[-1]


def test_a_stale_version_names_the_version_that_won() -> None:
    chain = _chain(3)
    with pytest.raises(StaleVersion) as stale:
        check_version(MemoryReads(*chain), SPACE, chain[0], expected=1)
    assert (stale.value.current, stale.value.head_id) == (3, chain[-1].id)


def test_the_current_version_passed_on_an_old_memory_points_at_the_head() -> None:
    chain = _chain(2)
    with pytest.raises(Conflict, match=f"pass memoryId='{chain[-1].id}'"):
        check_version(MemoryReads(*chain), SPACE, replace(chain[0], version=2), expected=2)


def test_a_loop_in_corrupt_data_ends_after_max_chain_reads() -> None:
    first, second = _chain(2)
    looped = MemoryReads(first, replace(second, active=False, invalidated_by=first.id))
    version_checks.head_of(looped, SPACE, first)
    assert looped.reads == version_checks.MAX_CHAIN
