"""The verification state machine (services/evidence/verification.py: check_citation), one citation of
a real file in a checkout on disk, each transition docs/evidence.md names: the hash unchanged is
`verified`; one match of the anchor is re-anchored and `verified`; a repeated anchor is not
re-anchored; the symbol still defined (in the file, or after a rename elsewhere in the
repository's index) is `moved`; file and symbol gone is `broken`; a commit, command or URL is
`not_anchored`. The repository's code index is a list of chunks (the one fake here)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memspace.domain.code import CodeChunk, Repo
from memspace.domain.evidence import Citation, Verification, anchor_at, overall
from memspace.services.evidence.verification import _Files, check_citation

ORIGINAL = """\
def charge(order):
    total = order.amount * order.rate
    return total


def refund(order):
    return -order.amount
"""
CITED_LINE = 2  # `total = order.amount * order.rate`, inside `charge`


class Index:
    """The code index as of the last sync: the chunks it holds, nothing else."""

    def __init__(self, chunks: list[CodeChunk] | None = None) -> None:
        self.chunks = chunks or []

    def chunks_of(self, space_id: str) -> list[CodeChunk]:
        return [c for c in self.chunks if c.space_id == space_id]


def _repo(root: Path) -> Repo:
    return Repo("repo-1", "space-1", "shop", str(root), datetime(2026, 1, 1, tzinfo=UTC))


def _cited(root: Path, path: str = "billing.py", line: int = CITED_LINE,
           symbol: str | None = "charge") -> Citation:
    """The citation as it was written against ORIGINAL."""
    data = (root / path).read_bytes()
    anchor, offset = anchor_at(data.decode().split("\n"), line - 1)
    return Citation("file", f"{path}:{line}", repo="shop", path=path, line=line, symbol=symbol,
                    anchor=anchor, offset=offset, file_hash=hashlib.sha256(data).hexdigest())


def _check(root: Path, citation: Citation, index: Index | None = None) -> Citation:
    return check_citation(citation, _Files([_repo(root)], index or Index(), "space-1"))  # type: ignore[arg-type]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "billing.py").write_text(ORIGINAL)
    return tmp_path


def test_a_file_whose_hash_is_unchanged_is_verified_as_cited(checkout: Path) -> None:
    cited = _cited(checkout)
    checked = _check(checkout, cited)
    assert checked.state is Verification.VERIFIED
    assert (checked.line, checked.anchor, checked.file_hash) == (cited.line, cited.anchor,
                                                                 cited.file_hash)


def test_an_unchanged_hash_is_trusted_without_reading_the_anchor(checkout: Path) -> None:
    """The cheapest check first: a citation whose anchor no longer matches (written by an older
    anchoring rule) is still verified while the file's bytes are the ones recorded."""
    cited = _cited(checkout)
    stale = replace(cited, anchor=("a line the file never held",))
    assert _check(checkout, stale).state is Verification.VERIFIED


def test_a_line_that_moved_once_is_re_anchored_and_verified(checkout: Path) -> None:
    cited = _cited(checkout)
    edited = '"""Billing."""\n\nTAX = 0.2\n' + ORIGINAL
    (checkout / "billing.py").write_text(edited)
    checked = _check(checkout, cited)
    assert checked.state is Verification.VERIFIED
    assert checked.line == CITED_LINE + 3
    assert edited.split("\n")[checked.line - 1].strip() == "total = order.amount * order.rate"
    assert checked.file_hash == hashlib.sha256(edited.encode()).hexdigest()
    assert checked.anchor == ("total = order.amount * order.rate",)


def test_a_line_anchored_by_its_neighbours_is_re_anchored_to_itself(checkout: Path) -> None:
    """A blank line says nothing on its own: its anchor is widened to the lines around it, and
    re-anchoring finds the cited line inside that window, not the window's first line."""
    cited = _cited(checkout, line=4)
    assert cited.offset > 0
    (checkout / "billing.py").write_text("import decimal\n\n" + ORIGINAL)
    checked = _check(checkout, cited)
    assert checked.state is Verification.VERIFIED and checked.line == 6
    assert (checked.anchor, checked.offset) == (cited.anchor, cited.offset)


def test_a_repeated_anchor_is_not_re_anchored(checkout: Path) -> None:
    """Two places now read as the cited one: picking either could point at the wrong code, so
    the line is left as cited and the symbol decides (still defined here: moved)."""
    cited = _cited(checkout)
    (checkout / "billing.py").write_text(
        "def charge_twice(order):\n    total = order.amount * order.rate\n    return 2 * total\n"
        "\n\n" + ORIGINAL)
    checked = _check(checkout, cited)
    assert checked.state is Verification.MOVED
    assert (checked.line, checked.anchor, checked.file_hash) == (cited.line, cited.anchor,
                                                                 cited.file_hash)


def test_a_repeated_anchor_with_its_symbol_gone_is_broken(checkout: Path) -> None:
    cited = _cited(checkout)
    (checkout / "billing.py").write_text(
        "def bill(order):\n    total = order.amount * order.rate\n    return total\n\n\n"
        "def rebill(order):\n    total = order.amount * order.rate\n    return total\n")
    checked = _check(checkout, cited)
    assert checked.state is Verification.BROKEN and checked.line == cited.line


def test_an_anchor_gone_while_the_symbol_stays_in_the_file_is_moved(checkout: Path) -> None:
    cited = _cited(checkout)
    (checkout / "billing.py").write_text(ORIGINAL.replace("order.amount * order.rate",
                                                          "order.amount * order.fx_rate"))
    checked = _check(checkout, cited)
    assert checked.state is Verification.MOVED and checked.line == cited.line


def test_an_anchor_and_its_symbol_gone_from_the_file_is_broken(checkout: Path) -> None:
    cited = _cited(checkout)
    (checkout / "billing.py").write_text("def refund(order):\n    return -order.amount\n")
    assert _check(checkout, cited).state is Verification.BROKEN


def test_a_deleted_file_whose_symbol_the_index_finds_elsewhere_is_moved(checkout: Path) -> None:
    cited = _cited(checkout)
    (checkout / "billing.py").unlink()
    renamed = CodeChunk("c1", "space-1", "repo-1", "payments.py", 1, 3, "charge", "python",
                        "def charge(order): ...")
    assert _check(checkout, cited, Index([renamed])).state is Verification.MOVED


def test_a_deleted_file_whose_symbol_is_gone_everywhere_is_broken(checkout: Path) -> None:
    cited = _cited(checkout)
    (checkout / "billing.py").unlink()
    others = [CodeChunk("c1", "space-1", "repo-1", "payments.py", 1, 3, "refund", "python", ""),
              CodeChunk("c2", "space-2", "repo-9", "billing.py", 1, 3, "charge", "python", ""),
              CodeChunk("c3", "space-1", "repo-2", "billing.py", 1, 3, "charge", "python", "")]
    assert _check(checkout, cited, Index(others)).state is Verification.BROKEN


def test_a_deleted_file_cited_without_a_symbol_is_broken(checkout: Path) -> None:
    cited = _cited(checkout, symbol=None)
    (checkout / "billing.py").unlink()
    anything = [CodeChunk("c1", "space-1", "repo-1", "payments.py", 1, 3, "charge", "python", "")]
    assert _check(checkout, cited, Index(anything)).state is Verification.BROKEN


def test_a_method_is_found_by_its_own_name_after_a_rename(checkout: Path) -> None:
    cited = _cited(checkout, symbol="Billing.charge")
    (checkout / "billing.py").unlink()
    method = [CodeChunk("c1", "space-1", "repo-1", "ledger.py", 1, 3, "Ledger.charge", "python", "")]
    assert _check(checkout, cited, Index(method)).state is Verification.MOVED


@pytest.mark.parametrize("kind, value", [("commit", "3f78685"), ("cmd", "make test"),
                                         ("url", "https://example.com/runbook")])
def test_a_commit_command_or_url_is_not_anchored(checkout: Path, kind: str, value: str) -> None:
    cited = Citation(kind, value)  # type: ignore[arg-type]
    assert _check(checkout, cited).state is Verification.NOT_ANCHORED


def test_a_file_cited_before_any_repository_was_registered_stays_unverified(checkout: Path) -> None:
    cited = Citation("file", "billing.py:2", path="billing.py", line=2)
    assert _check(checkout, cited).state is Verification.UNVERIFIED


def test_a_file_of_a_repository_no_longer_registered_is_broken(checkout: Path) -> None:
    cited = _cited(checkout)
    gone = replace(cited, repo="old-shop")
    assert _check(checkout, gone).state is Verification.BROKEN


def test_a_memory_shows_its_worst_citations_state() -> None:
    def one(state: Verification) -> Citation:
        return Citation("file", "x", state=state)

    assert overall(()) is None
    assert overall((one(Verification.VERIFIED), Citation("commit", "3f78685",
                                                         state=Verification.NOT_ANCHORED))) \
        is Verification.VERIFIED
    assert overall((one(Verification.VERIFIED), one(Verification.MOVED))) is Verification.MOVED
    assert overall((one(Verification.MOVED), one(Verification.BROKEN))) is Verification.BROKEN
