"""The store roles of the work around the memories (each store builds them with the others,
domain/graph_port.py): code index, evidence, lifecycle marks, the conflict queue and a space's
texts. The graph's own roles, and the value types they share, are in domain/ports.py."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.conflicts import RecordedConflict, Settlement
from memspace.domain.consolidation import PassCursor, PassRecord
from memspace.domain.lifecycle import MemoryStatus, Revision
from memspace.domain.models import Memory, Relation, Space
from memspace.domain.ports import Checked, PageAfter


class CodeIndexStore(Protocol):
    """Repositories registered per space, their indexed files and code chunks (services/evidence/repos.py)."""

    def add_repo(self, repo: Repo) -> None:
        """Raises Conflict when the name is taken."""

    def list_repos(self, space_id: str | None = None) -> list[Repo]:
        """By name; every space's when `space_id` is None."""

    def get_repo(self, name: str) -> Repo | None: ...

    def remove_repo(self, repo_id: str) -> None:
        """The repository with its files, chunks and mined commits."""

    def file_hashes(self, repo_id: str) -> dict[str, str]:
        """path -> sha256 of every indexed file."""

    def apply_files(self, repo: Repo, files: Sequence[IndexedFile], removed: Sequence[str],
                    at: datetime, head: str | None) -> None:
        """Replace the chunks of `files`, drop `removed`, record their hashes, bump the
        generation: one transaction (a killed sync leaves the index as it was before)."""

    def chunks_of(self, space_id: str) -> list[CodeChunk]: ...

    def get_chunk(self, space_id: str, chunk_id: str) -> CodeChunk | None: ...

    def chunk_ids_with_prefix(self, space_id: str, prefixes: Sequence[str], limit: int
                              ) -> list[str]:
        """The ids of the space's code chunks that start with one of `prefixes`, at most
        `limit` per prefix: what a short id stands for (services/shared/id_prefixes.py)."""

    def mined_commits(self, repo_id: str) -> set[str]: ...

    def mark_mined(self, repo_id: str, shas: Sequence[str]) -> None: ...


class EvidenceStore(Protocol):
    """The evidence policy of each space and the verification state of cited memories."""

    def evidence_policy(self, space_id: str) -> str:
        """`optional` unless set."""

    def set_evidence_policy(self, space_id: str, policy: str) -> None: ...

    def anchored_memories(self, space_id: str) -> list[Memory]:
        """Active memories with at least one citation."""

    def set_verification(self, space_id: str, checked: Sequence[Checked], at: datetime) -> None:
        """Store re-checked citations (re-anchored lines included) and each memory's state, in
        one transaction."""

    def memories_in_state(self, space_id: str, state: str, limit: int,
                          after: PageAfter | None = None) -> list[Memory]:
        """Active memories in that verification state, newest first."""


class LifecycleStore(Protocol):
    """A memory's status set by hand, with who set it, when and why (domain/lifecycle.py).
    A role object per store (stores/*/lifecycle.py) over the graph's connection."""

    def mark(self, space_id: str, memory_id: str, status: MemoryStatus, reason: str, by: str,
             at: datetime, expected_version: int | None = None) -> Memory:
        """Set an active memory's status, bump its version, put it in the change feed and
        record the change, in one transaction under the space's write lock.

        Raises:
            NotFound: no such memory in the space.
            Conflict: it is no longer active (superseded or forgotten).
            StaleVersion: `expected_version` is given and is not its version.
        """

    def marks_of(self, space_id: str, memory_ids: list[str]) -> list[Revision]:
        """The status changes of these memories, oldest first."""

    def expire_due(self, space_id: str, now: datetime, by: str, reason: str,
                   limit: int) -> list[Memory]:
        """Retire up to `limit` active memories of the space whose `expires_at` is at or
        before `now`, in one transaction under the space's write lock: each becomes inactive
        and historical as of its expiry (invalidated_at = valid_to = expires_at, so reads of
        the past still show it before then), with `reason` and `by` as its forget reason and
        forgotten-by, its version bumped, in the change feed, and an `expired` entry in its
        history (marks_of). The memories as they are after; none due: [] and nothing changes."""


class ConflictStore(Protocol):
    """The conflict queue's records and settlements (domain/conflicts.py, docs/conflicts.md).
    A role object per store (stores/*/conflicts.py) over the graph's connection."""

    def record(self, conflict: RecordedConflict) -> bool:
        """Keep a conflict; False (and nothing changes) when one with its id is already kept,
        open or settled."""

    def open_recorded(self, space_id: str, limit: int) -> list[RecordedConflict]:
        """The space's open recorded conflicts, newest first: not settled, every memory still
        current, a proposal's text not stored since."""

    def get_recorded(self, space_id: str, conflict_id: str) -> RecordedConflict | None:
        """One open recorded conflict of the space, or None."""

    def settle(self, settlement: Settlement) -> None:
        """In one transaction under the space's write lock: each memory of `supersede` leaves
        the current set (superseded by `keep`, or historical with no keep), `keep` becomes
        current, each gets a `resolved` entry in its history (LifecycleStore.marks_of), and the
        conflict is kept as settled with who, when and why.

        Raises:
            NotFound: a memory it names is not in the space.
            StaleVersion: a memory is no longer at its `expected` version, or no longer current.
        """


class SpaceTextStore(Protocol):
    """A space's description and its instructions for agents (get_context's header)."""

    def set_space_text(self, space_id: str, description: str | None,
                       instructions: str | None) -> Space:
        """Set what is given (None keeps it). Raises NotFound."""


class ConsolidationStore(Protocol):
    """What the consolidation pass keeps per space (domain/consolidation.py,
    docs/consolidation.md): its lease, its cursor, its records, the links it adds and the undo
    of a pass. A role object per store (stores/*/consolidation.py). Its supersessions are
    written by ConflictStore.settle (a fold is a settled conflict)."""

    def take_lease(self, space_id: str, holder: str, now: datetime, until: datetime) -> bool:
        """Hold the space's pass lease until `until`: True when it was free, had lapsed
        (its until <= now) or is already `holder`'s (then renewed); False, changing nothing,
        when another holder has it. Atomic across every process on the store."""

    def release_lease(self, space_id: str, holder: str) -> None:
        """Give the lease back if `holder` has it (nothing otherwise)."""

    def cursor(self, space_id: str) -> PassCursor:
        """How far passes have read the space's change feed (PassCursor(0): no pass yet)."""

    def save_pass(self, record: PassRecord) -> None:
        """Keep the record (insert, or replace the one with its id); when it is finished
        (`finished_at` set), the space's cursor moves to `record.end` in the same
        transaction, unless the cursor is ahead of it already (PassCursor.ahead_of: a pass
        saved late never moves it back)."""

    def get_pass(self, space_id: str, pass_id: str) -> PassRecord | None:
        """One pass of the space, or None (another space's answers None too)."""

    def list_passes(self, space_id: str, limit: int) -> list[PassRecord]:
        """The space's passes, newest started first."""

    def decided(self, space_id: str, conflict_ids: Sequence[str]) -> set[str]:
        """Those of `conflict_ids` kept as conflict records of the space, open or settled
        (a group the queue holds or a person or pass already decided)."""

    def link(self, space_id: str, relations: Sequence[Relation]) -> list[Relation]:
        """In one transaction under the space's write lock: write each relation whose two ends
        are active memories of the space and are not joined by any relation yet (either
        direction); bump the space's version. Returns the relations written."""

    def undo(self, space_id: str, pass_id: str, restore: dict[str, int],
             unlink: Sequence[Relation], by: str, at: datetime, reason: str) -> list[str]:
        """Reverse a pass in one transaction under the space's write lock: each memory of
        `restore` still inactive at the version given becomes current again (active, status
        current, its invalidation and valid_to cleared, version + 1, in the change feed, a
        `restored` entry in its history with `by` and `reason`); a memory not at that version
        is left alone. Each relation of `unlink` (same ends, type and writer) is removed; the
        pass is marked undone by `by` at `at`. Returns the ids restored.

        Raises:
            NotFound: no such pass in the space.
            Conflict: the pass is undone already.
        """
