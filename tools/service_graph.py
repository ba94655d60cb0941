"""The shape of src/memspace/services in a source tree, and the service modules an add and a
search run through. Prints; asserts nothing.

Static (parsed with `ast`, nothing imported): the modules of services/, the import arrows out
of them (imports under `if TYPE_CHECKING:` counted too; an import of a package's name is an
arrow to its __init__), and the same graph by unit — a package
of services/, or a module at its root — with its arrows, its cycles (strongly connected
groups of more than one unit) and its floors (the longest chain of arrows, plus one).

Dynamic (`--walk`): builds the app over a fresh SQLite store with a hashing embedder (no model),
adds one memory and searches once, and counts the distinct modules of services/ whose
functions ran during each call (sys.setprofile).

Usage: .venv/bin/python tools/service_graph.py [SRC] [--walk]
  e.g. git archive <commit> src | tar -x -C /tmp/before && \\
       .venv/bin/python tools/service_graph.py /tmp/before/src --walk
"""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def module_names(src: Path) -> dict[str, Path]:
    names = {}
    for path in sorted((src / "memspace" / "services").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def arrows(src: Path) -> dict[str, set[str]]:
    known = module_names(src)
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]
                if target in known and target != name and target != "memspace.services":
                    edges[name].add(target)
    return edges


def unit_of(module: str, src: Path) -> str:
    """A package of services/ (memspace.services.X with an __init__), or the module itself."""
    parts = module.split(".")
    if len(parts) >= 3 and (src / Path(*parts[:3]) / "__init__.py").exists():
        return ".".join(parts[:3])
    return module


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            groups.append(group)

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [g for g in groups if len(g) > 1]


def floors(edges: dict[str, set[str]]) -> int:
    depth: dict[str, int] = {}

    def of(node: str, seen: frozenset[str]) -> int:
        if node not in depth:
            below = [of(n, seen | {node}) for n in edges[node] if n not in seen]
            depth[node] = 1 + max(below, default=0)
        return depth[node]

    return max((of(n, frozenset()) for n in edges), default=0)


def report(src: Path) -> None:
    edges = arrows(src)
    inits = {m for m, path in module_names(src).items() if path.name == "__init__.py"}
    modules = [m for m in edges if m not in inits]
    print(f"services/ in {src}: {len(modules)} modules (and {len(inits) - 1} package "
          f"__init__s), {sum(len(edges[m]) for m in modules)} import arrows out of the modules")
    units: dict[str, set[str]] = {}
    for name, targets in edges.items():
        if name == "memspace.services":
            continue
        mine = unit_of(name, src)
        units.setdefault(mine, set())
        units[mine] |= {unit_of(t, src) for t in targets} - {mine}
    cycles = strongly_connected(units)
    packages = [u for u in units if (src / Path(*u.split("."))).is_dir()]
    print(f"  by unit: {len(units)} units ({len(packages)} packages, "
          f"{len(units) - len(packages)} modules at the root), "
          f"{sum(len(t) for t in units.values())} arrows, {len(cycles)} cycles, "
          f"{floors(units)} floors")
    for group in cycles:
        print("  cycle:", " ".join(sorted(u.rsplit(".", 1)[-1] for u in group)))


class HashingEmbedder:
    """A fixed pseudo-random unit vector per text, no model."""

    dimensions = 384

    def __init__(self) -> None:
        from memspace.domain.embedder import MINILM_CALIBRATION

        self.calibration = MINILM_CALIBRATION

    def embed(self, texts: Any) -> list[Any]:
        import numpy as np

        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return out

    embed_queries = embed


def walk(src: Path) -> None:
    """Run in a process whose path starts with the tree measured (see main)."""
    from memspace.domain.models import Access
    from memspace.services.search import SearchRequest
    from memspace.startup.container import build
    from memspace.startup.settings import Settings

    settings = Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp()),  # type: ignore[call-arg]
                        store="sqlite", embedding_model="e5-small-v2", llm_model="")
    app = build(settings, embedder=HashingEmbedder())
    app.admin.create_space("walk")
    who = app.access.authenticate(app.admin.create_key("walk", {"walk": Access.READWRITE}).raw)
    app.memories.add(who, "The storefront is hosted on Fly.io since March.", space="walk")
    app.search.search(who, SearchRequest(query="where is the storefront hosted", space="walk"))

    def traced(call: Any) -> set[str]:
        seen: set[str] = set()

        def profile(frame: Any, event: str, arg: Any) -> None:
            name = frame.f_globals.get("__name__", "")
            if event == "call" and name.startswith("memspace.services."):
                seen.add(name)

        sys.setprofile(profile)
        try:
            call()
        finally:
            sys.setprofile(None)
        return seen

    add = traced(lambda: app.memories.add(who, "Staging is staging.acme.test.", space="walk"))
    search = traced(lambda: app.search.search(
        who, SearchRequest(query="where is staging", space="walk")))
    for label, seen in (("an add", add), ("a search", search)):
        units = {unit_of(s, src) for s in seen}
        print(f"  {label} runs code of {len(seen)} service modules in {len(units)} units: "
              + " ".join(sorted(s.removeprefix("memspace.services.") for s in seen)))
    app.close()


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = Path(args[0]).resolve() if args else ROOT / "src"
    if "--_walk" in sys.argv:
        walk(src)
        return
    report(src)
    if "--walk" in sys.argv:
        subprocess.run([sys.executable, __file__, str(src), "--_walk"], check=True,
                       env={**os.environ, "PYTHONPATH": str(src)})


if __name__ == "__main__":
    main()
