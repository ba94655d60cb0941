"""Evidence end to end through the services, on both stores, over real git repositories:
citations on writes under each policy, dry runs, syncs and verification after edits."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memspace.domain.errors import InvalidInput, MissingEvidence, NotFound, UnresolvableAnchor
from memspace.domain.models import MemoryFilter
from memspace.services.access.access import AccessService, Principal
from memspace.services.memories.memories import AddRequest
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from tests.support.fakes import HashEmbedder
from tests.support.gitrepo import SERVICE_PY, GitRepo
from tests.support.stores import STORE_PARAMS, make_store

OP = AccessService.operator()


@pytest.fixture(params=STORE_PARAMS)
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    made = build(settings, store=make_store(request.param, request, tmp_path),
                 embedder=HashEmbedder())
    yield made
    made.close()


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    git = GitRepo(tmp_path / "checkout")
    git.write("billing/service.py", SERVICE_PY)
    git.write("README.md", "# Billing\n\nHow we bill.\n\n## Retries\n\nThey back off.\n")
    git.commit("first: billing service")
    return git


def setup(app: Container, repo: GitRepo, slug: str) -> tuple[str, str]:
    """A fresh space with `repo` registered and indexed; (space slug, repo name)."""
    space = app.admin.create_space(f"{slug}-{os.urandom(3).hex()}").slug
    name = f"svc-{os.urandom(3).hex()}"
    app.repos.add(OP, name, str(repo.root), space)
    app.repos.sync(OP, name)
    return space, name


def add(app: Container, space: str, content: str, *evidence: str, dry_run: bool = False,
        who: Principal = OP) -> object:
    return app.memories.submit(who, AddRequest(content, space, evidence=evidence),
                               dry_run=dry_run)


def count(app: Container, space: str) -> int:
    sid = app.access.resolve(OP, space).space.id
    return len(app.store.reads.list_memories(MemoryFilter(sid), 1000))


def test_a_citation_is_resolved_anchored_and_shown(app: Container, repo: GitRepo) -> None:
    space, name = setup(app, repo, "cite")
    line = repo.line_of("billing/service.py", "delay = min(30")
    result = app.memories.submit(OP, AddRequest(
        "Retry delays are capped at 30 s", space,
        evidence=(f"billing/service.py:{line}", "cmd:pytest tests/test_retry.py",
                  "https://example.test/adr/7")))
    [memory] = result.memories
    assert [c.text for c in memory.evidence] == [
        f"{name}/billing/service.py:{line}#backoff", "cmd:pytest tests/test_retry.py",
        "https://example.test/adr/7"]
    assert memory.verification == "verified"
    stored = app.memories.get(OP, memory.id, space)
    assert stored.memory.evidence == memory.evidence


def test_required_policy_refuses_and_writes_nothing(app: Container, repo: GitRepo) -> None:
    space, name = setup(app, repo, "strict")
    app.evidence.set_policy(OP, space, "required")
    before = count(app, space)
    with pytest.raises(MissingEvidence):
        add(app, space, "Invoices are taxed at 20%")
    for bad in ("billing/service.py:999", "billing/nothing.py:1", f"{name}/../../etc/passwd:1",
                "/etc/passwd:1", "commit:deadbeefdeadbeef"):
        with pytest.raises(UnresolvableAnchor):
            add(app, space, "Invoices are taxed at 20%", bad)
    with pytest.raises(InvalidInput):
        add(app, space, "Invoices are taxed at 20%", "see the code")
    assert count(app, space) == before
    sha = repo.git("rev-parse", "HEAD")
    done = add(app, space, "Invoices are taxed at 20%", f"commit:{sha}")
    assert done.memories[0].verification == "not_anchored"  # type: ignore[attr-defined]


def test_optional_policy_keeps_an_unresolvable_citation_marked_broken(
        app: Container, repo: GitRepo) -> None:
    space, _ = setup(app, repo, "loose")
    done = add(app, space, "The tax rate lives in config", "billing/config.py:3")
    assert done.memories[0].verification == "broken"  # type: ignore[attr-defined]
    assert any("billing/config.py" in w for w in done.warnings)  # type: ignore[attr-defined]


def test_dry_run_validates_answers_and_writes_nothing(app: Container, repo: GitRepo) -> None:
    space, _ = setup(app, repo, "dry")
    line = repo.line_of("billing/service.py", "def total")
    add(app, space, "Invoice totals sum the amount of every line", f"billing/service.py:{line}")
    before = count(app, space)
    dry = add(app, space, "Invoice totals sum the amount of each line",
              f"billing/service.py:{line}", dry_run=True)
    assert dry.status == "dry_run"  # type: ignore[attr-defined]
    assert dry.memories[0].evidence[0].symbol == "Invoices.total"  # type: ignore[attr-defined]
    assert [s.memory.content for s in dry.similar] == [  # type: ignore[attr-defined]
        "Invoice totals sum the amount of every line"]
    assert count(app, space) == before
    with pytest.raises(UnresolvableAnchor):
        app.evidence.set_policy(OP, space, "required")
        add(app, space, "x", "billing/service.py:999", dry_run=True)


def test_verify_reanchors_moves_and_breaks(app: Container, repo: GitRepo) -> None:
    space, name = setup(app, repo, "verify")
    path = "billing/service.py"

    def cite(text: str, needle: str) -> str:
        return add(app, space, text, f"{path}:{repo.line_of(path, needle)}").memories[0].id  # type: ignore[attr-defined]

    capped = cite("Retry delays are capped at 30 s", "delay = min(30")
    total = cite("Invoice totals sum every line", "return sum(line.amount")
    tax = cite("Tax is rounded up", "math.ceil")
    mined = add(app, space, "The billing service was added first",
                f"commit:{repo.git('rev-parse', 'HEAD')}").memories[0].id  # type: ignore[attr-defined]
    # edits above the cited lines: re-anchored silently by the sync
    repo.write(path, "# Owned by the billing team.\n# See docs.\n" + repo.read(path))
    repo.commit("header")
    synced = app.repos.sync(OP, name)
    assert {v.memory.id for v in synced.verified} == {capped, total, tax}
    after = {v.memory.id: v.memory for v in synced.verified}
    assert after[capped].verification == "verified"
    assert after[capped].evidence[0].line == repo.line_of(path, "delay = min(30")
    assert after[capped].evidence[0].text.startswith(f"{name}/{path}:")
    # the cited line itself changed, its function stays: moved
    repo.write(path, repo.read(path).replace("delay = min(30, 2 ** attempt)",
                                             "delay = min(60, 3 ** attempt)"))
    # a cited function deleted: broken
    text = repo.read(path)
    repo.write(path, text.replace("    def tax(self, lines):\n"
                                  "        return math.ceil(self.total(lines) * 0.2)\n", ""))
    repo.commit("slower backoff, no tax")
    report = app.verification.verify(OP, space)
    states = {v.memory.id: v.memory.verification for v in report.checked}
    assert states == {capped: "moved", total: "verified", tax: "broken", mined: "not_anchored"}
    assert [m.id for m in app.verification.in_state(OP, "broken", space)[1].items] == [tax]
    # a renamed file: what it cited is still defined elsewhere in the repository
    repo.git("mv", path, "billing/invoices.py")
    repo.commit("rename")
    app.repos.sync(OP, name)
    again = app.verification.verify(OP, space, total)
    assert again.checked[0].memory.verification == "moved"
    # a force-pushed history: the commit citation stays not_anchored, nothing breaks
    repo.git("reset", "-q", "--hard", "HEAD~3")
    repo.commit("rewritten history")
    app.repos.sync(OP, name)
    final = {v.memory.id: v.memory.verification
             for v in app.verification.verify(OP, space).checked}
    assert final[mined] == "not_anchored" and final[capped] == "verified"


def test_code_search_and_chunks_are_space_bound(app: Container, repo: GitRepo) -> None:
    space, name = setup(app, repo, "code")
    other = app.admin.create_space(f"other-{os.urandom(3).hex()}").slug
    found = app.code.search(OP, "backoff delay", space)
    top = found.hits[0]
    assert (top.repo, top.chunk.path, top.chunk.symbol) == (name, "billing/service.py", "backoff")
    lines = repo.read("billing/service.py").split("\n")
    view = app.code.get_chunk(OP, top.chunk.id, space)
    assert view.chunk.body == "\n".join(lines[view.chunk.start_line - 1:view.chunk.end_line])
    with pytest.raises(NotFound):
        app.code.get_chunk(OP, top.chunk.id, other)
    empty = app.code.search(OP, "backoff", other)
    assert not empty.hits and "no repository is registered" in str(empty.message)
    app.repos.add(OP, f"later-{os.urandom(3).hex()}", str(repo.root), other)
    never = app.code.search(OP, "backoff", other)
    assert not never.hits and "never indexed" in str(never.message)


def test_sync_skips_what_it_cannot_read_and_drops_removed_files(
        app: Container, repo: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("password=hunter2\n")
    os.symlink(outside, repo.root / "leak.txt")
    (repo.root / "logo.bin").write_bytes(b"\x89PNG\0\0\0" * 100)
    with open(repo.root / "huge.txt", "wb") as handle:
        handle.truncate(50 * 2**20)  # 50 MB
    repo.commit("odd files")
    space, name = setup(app, repo, "odd")
    done = app.repos.sync(OP, name)
    skipped = dict(done.skipped)
    assert "pointing out of the checkout" in skipped["leak.txt"]
    assert "binary" in skipped["logo.bin"]
    assert "over the" in skipped["huge.txt"]
    sid = app.access.resolve(OP, space).space.id
    paths = {c.path for c in app.repos._index.chunks_of(sid)}
    assert paths == {"billing/service.py", "README.md"}
    with pytest.raises(UnresolvableAnchor):
        app.evidence.set_policy(OP, space, "required")
        add(app, space, "The secret is there", "leak.txt:1")
    repo.git("rm", "-q", "README.md")
    repo.commit("no readme")
    assert app.repos.sync(OP, name).removed == 1
    assert {c.path for c in app.repos._index.chunks_of(sid)} == {"billing/service.py"}


def test_registering_refuses_what_is_not_a_checkout(app: Container, tmp_path: Path,
                                                    repo: GitRepo) -> None:
    space = app.admin.create_space(f"reg-{os.urandom(3).hex()}").slug
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InvalidInput, match="not a git repository"):
        app.repos.add(OP, "plain", str(plain), space)
    with pytest.raises(InvalidInput, match="not a directory"):
        app.repos.add(OP, "gone", str(tmp_path / "nope"), space)
    with pytest.raises(InvalidInput, match="inside the git checkout"):
        app.repos.add(OP, "sub", str(repo.root / "billing"), space)
    with pytest.raises(InvalidInput):
        app.repos.add(OP, "../bad", str(repo.root), space)
    assert app.repos.repos_of(OP, space) == []


def test_context_lists_broken_notes_and_handoffs_carry_evidence(
        app: Container, repo: GitRepo) -> None:
    space, _ = setup(app, repo, "ctx")
    path = "billing/service.py"
    gone = add(app, space, "Tax is rounded up",
               f"{path}:{repo.line_of(path, 'math.ceil')}").memories[0].id  # type: ignore[attr-defined]
    repo.write(path, repo.read(path).replace(
        "    def tax(self, lines):\n        return math.ceil(self.total(lines) * 0.2)\n", ""))
    repo.commit("no tax")
    cited = f"{path}:{repo.line_of(path, 'def total')}"
    kept = add(app, space, "Totals are summed per line", cited).memories[0].id  # type: ignore[attr-defined]
    app.verification.verify(OP, space)
    brief = app.briefings.brief(OP, space=space)
    section = brief.text.split("## Moved or broken notes")[1]
    assert f"[{gone[:8]}] (broken: " in section  # each memory by its short id
    # an ordinary entry shows its citations and their state, as a search hit does
    [entry] = [line for line in brief.text.splitlines() if line.startswith(f"- [{kept[:8]}] (")]
    assert "[verified: " in entry and f"/{cited}#Invoices.total]" in entry
    assert entry.index("[verified: ") < entry.index("│ Totals are summed per line")
    app.evidence.set_policy(OP, space, "required")
    with pytest.raises(MissingEvidence):
        app.handoffs.save(OP, "Half way through the tax removal", space=space)
    cite = [f"{path}:{repo.line_of(path, 'def total')}"]
    _, dry = app.handoffs.save(OP, "Tax removed", space=space, evidence=cite, dry_run=True)
    assert dry.evidence and app.handoffs.latest(OP, space=space)[1] is None  # nothing written
    _, handoff = app.handoffs.save(OP, "Tax removed", space=space, evidence=cite)
    assert handoff.evidence[0].endswith("#Invoices.total")
    assert app.handoffs.latest(OP, space=space)[1] == handoff


def test_export_and_import_keep_the_citations(app: Container, repo: GitRepo) -> None:
    space, name = setup(app, repo, "port")
    line = repo.line_of("billing/service.py", "def total")
    saved = add(app, space, "Invoice totals sum every line", f"billing/service.py:{line}",
                "cmd:make test").memories[0]  # type: ignore[attr-defined]
    lines = list(app.portability.export(OP, space))
    target = f"copy-{os.urandom(3).hex()}"
    app.portability.import_space(OP, target, iter(json.dumps(r) for r in lines), True,
                                 create=True)
    sid = app.access.resolve(OP, target).space.id
    [copied] = app.store.reads.list_memories(MemoryFilter(sid), 10)
    assert [c.text for c in copied.evidence] == [c.text for c in saved.evidence]
    assert copied.verification == "unverified"  # its repository did not travel with it
    app.repos.add(OP, f"again-{os.urandom(3).hex()}", str(repo.root), target)
    report = app.verification.verify(OP, target)
    assert report.checked[0].memory.verification == "broken"  # cites `name`, not registered here
    assert name in report.checked[0].memory.evidence[0].text


def test_without_a_repository_file_citations_stay_unverified(app: Container) -> None:
    space = app.admin.create_space(f"norepo-{os.urandom(3).hex()}").slug
    done = add(app, space, "The handler lives in app.py", "src/app.py:42")
    assert done.memories[0].verification == "unverified"  # type: ignore[attr-defined]
    assert "no registered repository" in done.warnings[0]  # type: ignore[attr-defined]
    report = app.verification.verify(OP, space)
    assert report.checked[0].memory.verification == "unverified"
