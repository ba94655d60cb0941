"""Comments and docstrings of src/memspace cite only paths that exist: a file moved or removed
leaves no pointer to nowhere. Parsed on the source (tokenize and `ast`, nothing imported).

A cited path is a word with a slash and a file suffix (`services/search/ranking.py`,
`docs/time.md`, `tests/load/test_crash.py`, `stores/*/oauth.py`), in a comment, a docstring or
a SQL comment (`-- …`) inside a statement's text. It is looked up from the repository's root,
from `src/`, and from each folder above the citing module up to `src/memspace` (so
`neo4j/kit.py` from `stores/sqlite/` finds `stores/neo4j/kit.py`); a `*` matches as in a glob.
Left out: examples a reader is not meant to open — a path within double quotes in a comment
(`# e.g. "src/auth.py moved to …"`) or starting with `./` or `~/` — and URLs.

Nor does src/ name issue numbers: a reader of the repository cannot see the tracker, so a
comment says the reason itself.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "memspace"
SUFFIXES = "py|md|ts|mjs|json|jsonl|toml|html|sh|txt|npz|yaml|yml|css|cfg|ini"
CITED = re.compile(rf"(?<![\w/.:~-])((?:[\w*.-]+/)+[\w*.-]+\.(?:{SUFFIXES}))(?![\w/])")
QUOTED = re.compile(r'"[^"\n]*"')
SQL_COMMENT = re.compile(r"--[^\n]*")


def _texts(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment, docstring and SQL comment of a module."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], QUOTED.sub("", token.string)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if (doc := ast.get_docstring(node, clean=False)) is not None:
                yield node.body[0].lineno, doc
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for comment in SQL_COMMENT.findall(node.value):
                yield node.lineno, comment


def cited(text: str) -> list[str]:
    return [m.group(1) for m in CITED.finditer(text)
            if not m.group(1).startswith("./") and "://" not in text[max(0, m.start() - 8):m.start()]]


def exists(reference: str, module: Path) -> bool:
    folders = [ROOT, SRC, *(d for d in module.parents if d == PACKAGE or PACKAGE in d.parents)]
    return any(next(folder.glob(reference), None) is not None for folder in folders)


def dead_citations() -> list[str]:
    dead = []
    for module in sorted(PACKAGE.rglob("*.py")):
        for line, text in _texts(module.read_text(encoding="utf-8")):
            dead += [f"{module.relative_to(ROOT)}:{line}: {ref}"
                     for ref in cited(text) if not exists(ref, module)]
    return dead


def test_every_path_a_comment_cites_exists() -> None:
    dead = dead_citations()
    assert not dead, "comments citing paths that do not exist:\n" + "\n".join(dead)


ISSUE = re.compile(r"\bissues? #?\d+\b|\(#\d+\)", re.IGNORECASE)


def test_no_issue_numbers_in_src() -> None:
    named = [f"{module.relative_to(ROOT)}:{n}: {line.strip()}"
             for module in sorted(PACKAGE.rglob("*.py"))
             for n, line in enumerate(module.read_text(encoding="utf-8").splitlines(), 1)
             if ISSUE.search(line)]
    assert not named, "issue numbers in src (say the reason instead):\n" + "\n".join(named)


def test_the_check_finds_what_it_is_for() -> None:
    module = PACKAGE / "stores" / "sqlite" / "store.py"
    assert cited("see `services/search/ranking.py` and docs/time.md.") == [
        "services/search/ranking.py", "docs/time.md"]
    assert cited("a path (`./run.sh`) or https://example.com/a/b.py") == []
    assert exists("services/search/ranking.py", module)
    assert exists("neo4j/kit.py", module)  # from stores/
    assert exists("stores/*/oauth.py", module)
    assert exists("tests/unit/test_cited_paths.py", module)
    assert not exists("embeddings/coalesce.py", module)
    found = dict(_texts('# e.g. "src/auth.py moved"\nQ = """x -- see stores/nowhere.py\n"""\n'))
    assert cited(found[1]) == [] and cited(found[2]) == ["stores/nowhere.py"]
    assert ISSUE.search("a hostile PDF (issue 11)") and ISSUE.search("see #38") is None
    assert ISSUE.search("No OAuth tokens have been issued yet.") is None
