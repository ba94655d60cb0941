"""Evidence on writes: citations parsed, resolved against the space's repositories and anchored,
under the space's evidence policy (docs/evidence.md).

Under `required` a write without evidence is refused (`missing_evidence`) and so is a citation
that does not resolve (`unresolvable_anchor`). Under `optional` (the default) an unresolvable
citation is kept as written, marked `broken`, and the answer warns about it. A path that would
leave the repository is refused under either policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from memspace.code import git
from memspace.code.chunkers import chunk_text, language_of
from memspace.code.files import Unreadable, read_text
from memspace.domain.code import Repo
from memspace.domain.errors import InvalidInput, MissingEvidence, UnresolvableAnchor
from memspace.domain.evidence import (
    MAX_CITATIONS,
    Citation,
    EvidencePolicy,
    Verification,
    anchor_at,
    parse_citation,
)
from memspace.domain.models import Space
from memspace.domain.ports import Clock
from memspace.domain.role_ports import CodeIndexStore, EvidenceStore
from memspace.services.access import AccessService, Principal


@dataclass
class CheckedEvidence:
    citations: tuple[Citation, ...] = ()
    warnings: list[str] = field(default_factory=list)


def enclosing_symbol(text: str, path: str, line: int) -> str | None:
    """The symbol of the chunk holding `line` (code/chunkers.py), if it has one."""
    for piece in chunk_text(text, language_of(path)):
        if piece.start_line <= line <= piece.end_line:
            return piece.symbol
    return None


def anchor_file(citation: Citation, repo: Repo, text: str, sha: str) -> Citation:
    """The citation of a line that exists: its anchor and symbol taken from the file now."""
    lines = text.split("\n")
    assert citation.line is not None
    anchor, offset = anchor_at(lines, citation.line - 1)
    symbol = citation.symbol or enclosing_symbol(text, str(citation.path), citation.line)
    return replace(citation, repo=repo.name, symbol=symbol, anchor=anchor, offset=offset,
                   file_hash=sha, state=Verification.VERIFIED)


class EvidenceService:
    """The policy of each space, and the citations of a write checked under it."""

    def __init__(self, repos: CodeIndexStore, evidence: EvidenceStore, access: AccessService,
                 clock: Clock) -> None:
        self._repos = repos
        self._evidence = evidence
        self._access = access
        self._clock = clock

    def policy(self, principal: Principal, space: str | None) -> tuple[str, EvidencePolicy]:
        target = self._access.resolve(principal, space)
        return target.space.slug, EvidencePolicy(self._evidence.evidence_policy(target.space.id))

    @staticmethod
    def parse_policy(policy: str | None) -> EvidencePolicy:
        try:
            return EvidencePolicy((policy or "").strip().lower())
        except ValueError as exc:
            raise InvalidInput(f"evidence policy '{policy}' is unknown; pass optional or "
                               "required, e.g. --evidence required") from exc

    def set_policy(self, principal: Principal, space: str | None, policy: str) -> str:
        chosen = self.parse_policy(policy)
        target = self._access.resolve(principal, space, write=True)
        self._evidence.set_evidence_policy(target.space.id, chosen.value)
        return target.space.slug

    def check(self, space: Space, raw: Sequence[str] | None) -> CheckedEvidence:
        """The citations of a write to `space`, resolved and anchored, or the refusal."""
        entries = [r for r in (raw or []) if r is not None]
        if len(entries) > MAX_CITATIONS:
            raise InvalidInput(f"{len(entries)} citations; a memory carries at most "
                               f"{MAX_CITATIONS} — cite the few that ground the claim")
        required = self._evidence.evidence_policy(space.id) == EvidencePolicy.REQUIRED
        if not entries and required:
            raise MissingEvidence(
                f"space '{space.slug}' requires evidence on every write; pass `evidence` with "
                "at least one citation: <path>:<line> of the code the claim is about, "
                "commit:<sha>, cmd:<command to rerun> or an https:// URL")
        # the space's checkouts anchor citations: a write citing nothing does not read them
        repos = self._repos.list_repos(space.id) if entries else []
        checked = CheckedEvidence()
        seen: set[str] = set()
        for entry in entries:
            citation = parse_citation(entry)
            try:
                citation = self._resolve(citation, repos)
            except UnresolvableAnchor as exc:
                if required:
                    raise
                checked.warnings.append(f"evidence '{entry}' kept unchecked: {exc.message}")
                if citation.kind == "file":  # nothing to check it against yet, or not there
                    citation = replace(citation, state=Verification.BROKEN if repos
                                       else Verification.UNVERIFIED)
            if citation.text not in seen:
                seen.add(citation.text)
                checked.citations += (citation,)
        return checked

    def _resolve(self, citation: Citation, repos: list[Repo]) -> Citation:
        if citation.kind == "commit":
            return self._resolve_commit(citation, repos)
        if citation.kind != "file":
            return citation
        repo, path = self._repo_of(str(citation.path), repos)
        citation = replace(citation, repo=repo.name, path=path)
        try:
            read = read_text(repo.path, path)
        except Unreadable as exc:
            raise UnresolvableAnchor(f"{citation.text}: {exc}; cite a text file of the "
                                     f"checkout '{repo.name}'") from exc
        total = len(read.text.split("\n")) - (1 if read.text.endswith("\n") else 0)
        assert citation.line is not None
        if citation.line > total:
            raise UnresolvableAnchor(f"{citation.text}: {path} has {total} lines; cite a line "
                                     "that exists")
        return anchor_file(citation, repo, read.text, read.sha256)

    @staticmethod
    def _repo_of(loc: str, repos: list[Repo]) -> tuple[Repo, str]:
        head, _, rest = loc.partition("/")
        named = next((r for r in repos if r.name == head), None)
        if named is not None and rest:
            return named, rest
        if len(repos) == 1:
            return repos[0], loc
        if not repos:
            raise UnresolvableAnchor(
                f"'{loc}' names a file, but this space has no registered repository; an "
                "operator registers one with `memspace repo add NAME PATH --space SPACE`")
        names = ", ".join(r.name for r in repos)
        raise UnresolvableAnchor(f"'{loc}' does not start with a repository of this space "
                                 f"({names}); cite <repo>/<path>:<line>")

    @staticmethod
    def _resolve_commit(citation: Citation, repos: list[Repo]) -> Citation:
        if not repos:
            raise UnresolvableAnchor(
                f"{citation.text}: this space has no registered repository to find it in; "
                "register one with `memspace repo add NAME PATH --space SPACE`")
        for repo in repos:
            if git.has_commit(repo.path, citation.value):
                return replace(citation, repo=repo.name)
        raise UnresolvableAnchor(f"{citation.text} is in none of this space's repositories "
                                 f"({', '.join(r.name for r in repos)}); cite a commit they hold")
