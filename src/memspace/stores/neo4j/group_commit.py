"""Group commit: writers of one space that arrive while a write is under way share the next
transaction instead of queueing for one each.

Writes to a space serialise on its Space node (cypher/memories.py BEGIN_SPACE_WRITE), and a
transaction's cost barely depends on how many memories it creates: on Neo4j 5.26 here one flat
memory took 31-37 ms to write and sixteen 35-39 ms (p50, busy 2 cores). So with 16 agents adding
at once, one transaction each made the last wait for fifteen; shared, it waits for about one.

Whoever finds no write of its space under way commits everything queued for that space by then
(its own item first); the others wait and get their own outcome: nothing, or the error that
concerned their item alone (a repeat of stored content is one writer's `duplicate`, not the
group's). An error of the transaction itself (the server went away) reaches every writer of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

# Commit = (space id, items) -> one outcome per item: None when written, else its error.
Commit = Callable[[str, Sequence[T]], Sequence[BaseException | None]]


@dataclass
class _Slot(Generic[T]):
    item: T
    done: bool = False
    error: BaseException | None = None


@dataclass
class _Space(Generic[T]):
    queue: list[_Slot[T]] = field(default_factory=list)
    busy: bool = False


class GroupCommit(Generic[T]):
    def __init__(self, commit: Commit[T], max_group: int = 64) -> None:
        """`max_group`: at most this many items per transaction, so one transaction stays
        short enough to retry within the connection's retry window."""
        self._commit = commit
        self._max_group = max_group
        self._spaces: dict[str, _Space[T]] = {}
        self._changed = threading.Condition()

    def submit(self, space_id: str, item: T) -> None:
        """Write `item` in the next transaction of its space; raises the item's own error."""
        slot = _Slot(item)
        with self._changed:
            space = self._spaces.setdefault(space_id, _Space())
            space.queue.append(slot)
            while space.busy and not slot.done:
                self._changed.wait()
            group: list[_Slot[T]] = []
            if not slot.done:  # nobody is committing for this space: this writer does
                space.busy = True
                space.queue.remove(slot)
                group = [slot, *space.queue[: self._max_group - 1]]
                del space.queue[: self._max_group - 1]
        if group:
            try:
                outcomes = list(self._commit(space_id, [s.item for s in group]))
                if len(outcomes) != len(group):
                    raise RuntimeError("group commit: one outcome per item expected")
            except BaseException as exc:  # the transaction failed: every writer of it learns why
                outcomes = [exc] * len(group)
            with self._changed:
                for member, outcome in zip(group, outcomes, strict=True):
                    member.done, member.error = True, outcome
                space.busy = False
                if not space.queue:
                    self._spaces.pop(space_id, None)
                self._changed.notify_all()
        if slot.error is not None:
            raise slot.error
