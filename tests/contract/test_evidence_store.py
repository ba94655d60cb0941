"""The evidence and code-index roles on every store alike: repositories, indexed files and
chunks, the evidence policy, cited memories and their verification state."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from memspace.domain.code import CodeChunk, IndexedFile, Repo
from memspace.domain.errors import Conflict
from memspace.domain.evidence import Citation, Verification
from memspace.domain.graph_port import GraphStore
from memspace.domain.ports import Checked, WriteBatch
from tests.support import builders as b


def repo(space_id: str) -> Repo:
    return Repo(uuid.uuid4().hex, space_id, f"r-{uuid.uuid4().hex[:8]}", "/tmp/x", b.BASE)


def file(r: Repo, path: str, sha: str, *spans: tuple[int, int, str | None]) -> IndexedFile:
    return IndexedFile(path, sha, "python", tuple(
        CodeChunk(uuid.uuid4().hex, r.space_id, r.id, path, lo, hi, sym, "python", f"body {path} {lo}")
        for lo, hi, sym in spans))


def test_repositories_files_and_chunks_round_trip(store: GraphStore) -> None:
    index = store.code_index
    space, other = b.space(f"s-{uuid.uuid4().hex[:6]}"), b.space(f"o-{uuid.uuid4().hex[:6]}")
    store.directory.create_space(space)
    store.directory.create_space(other)
    r = repo(space.id)
    index.add_repo(r)
    with pytest.raises(Conflict):
        index.add_repo(replace(r, id=uuid.uuid4().hex))
    assert [x.name for x in index.list_repos(space.id)] == [r.name]
    assert index.list_repos(other.id) == []
    index.apply_files(r, [file(r, "a.py", "h1", (1, 3, "f"), (5, 9, "g")),
                          file(r, "b.py", "h2", (1, 2, None))], [], b.BASE, "abc")
    assert index.file_hashes(r.id) == {"a.py": "h1", "b.py": "h2"}
    chunks = index.chunks_of(space.id)
    assert [(c.path, c.start_line, c.end_line, c.symbol) for c in chunks] == [
        ("a.py", 1, 3, "f"), ("a.py", 5, 9, "g"), ("b.py", 1, 2, None)]
    assert index.get_chunk(space.id, chunks[0].id) == chunks[0]
    assert index.get_chunk(other.id, chunks[0].id) is None  # a foreign id is a missing one
    again = index.get_repo(r.name)
    assert again is not None and again.head == "abc" and again.generation == 1
    # a changed file replaces its chunks; a removed one drops them
    index.apply_files(r, [file(r, "a.py", "h3", (1, 9, "f"))], ["b.py"], b.BASE, "def")
    assert index.file_hashes(r.id) == {"a.py": "h3"}
    assert [(c.path, c.end_line) for c in index.chunks_of(space.id)] == [("a.py", 9)]
    index.mark_mined(r.id, ["s1", "s2"])
    index.mark_mined(r.id, ["s2"])
    assert index.mined_commits(r.id) == {"s1", "s2"}
    index.remove_repo(r.id)
    assert index.get_repo(r.name) is None and index.chunks_of(space.id) == []
    assert index.file_hashes(r.id) == {} and index.mined_commits(r.id) == set()


def test_policy_citations_and_verification_state(store: GraphStore) -> None:
    evidence = store.evidence
    space = b.space(f"e-{uuid.uuid4().hex[:6]}")
    store.directory.create_space(space)
    assert evidence.evidence_policy(space.id) == "optional"
    evidence.set_evidence_policy(space.id, "required")
    assert evidence.evidence_policy(space.id) == "required"
    cited = (Citation("file", "a.py", "api", "a.py", 7, "f", ("x = 1",), 0, "h1",
                      Verification.VERIFIED),
             Citation("commit", "abc1234", "api", state=Verification.NOT_ANCHORED))
    m = replace(b.memory(space.id, "Retries back off"), evidence=cited, verification="verified",
                verified_at=b.BASE)
    plain = b.memory(space.id, "No citation here")
    store.writes.write(WriteBatch(space.id, [m, plain]))
    got = store.reads.get_memory(space.id, m.id)
    assert got is not None and got.evidence == cited and got.verification == "verified"
    assert got.verified_at == b.BASE
    assert [x.id for x in evidence.anchored_memories(space.id)] == [m.id]
    moved = (replace(cited[0], line=9, state=Verification.BROKEN), cited[1])
    evidence.set_verification(space.id, [Checked(m.id, moved, "broken")], b.BASE)
    got = store.reads.get_memory(space.id, m.id)
    assert got is not None and got.evidence[0].line == 9 and got.verification == "broken"
    assert [x.id for x in evidence.memories_in_state(space.id, "broken", 10)] == [m.id]
    assert evidence.memories_in_state(space.id, "verified", 10) == []
