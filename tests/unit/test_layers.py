"""The import layers of docs/architecture.md, checked on the source: every module of
src/memspace is parsed with `ast` (nothing is imported), and each import is held to the rules.

- A module imports only from its own layer or the layers below it.
- An entry point (a way into memspace) never imports another entry point; what two of them
  share lives in `surfaces/` below them, and only the launchers start them.
- No import cycles between modules (an import made inside a function counts too).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# Lowest first. A module belongs to the first group whose prefix names it (the longest wins).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("domain", ("memspace", "memspace.domain", "memspace.coalesce", "memspace.heap")),
    ("adapters", ("memspace.stores", "memspace.embeddings", "memspace.llm", "memspace.ingest",
                  "memspace.code")),
    ("services", ("memspace.services",)),
    ("present", ("memspace.present",)),
    ("composition", ("memspace.config", "memspace.wiring", "memspace.bootstrap", "memspace.metrics",
                     "memspace.surfaces")),
    ("entry points", ("memspace.api", "memspace.mcp", "memspace.hooks", "memspace.doctor",
                      "memspace.cli_admin", "memspace.cli_code", "memspace.cli_common",
                      "memspace.cli_conflicts", "memspace.cli_ingest",
                      "memspace.cli_memories", "memspace.cli_oauth", "memspace.cli_security",
                      "memspace.cli_workflow")),
    # What starts the entry points: the `memspace` command (its serve, stdio, hook and doctor
    # verbs) and the HTTP server, which mounts REST and MCP behind one middleware.
    ("launchers", ("memspace.cli", "memspace.cli_clients", "memspace.server")),
]

# The entry points; the modules under one name are one entry point (the CLI's commands are
# split over several modules that share `cli_common`).
ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    "api": ("memspace.api",),
    "mcp": ("memspace.mcp",),
    "hooks": ("memspace.hooks",),
    "doctor": ("memspace.doctor",),
    "cli": ("memspace.cli_admin", "memspace.cli_code", "memspace.cli_common", "memspace.cli_conflicts",
            "memspace.cli_ingest",
            "memspace.cli_memories", "memspace.cli_oauth", "memspace.cli_security",
            "memspace.cli_workflow"),
}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # the package itself (`memspace`) names only its __init__: a new top-level module
            # must be placed in a layer by hand
            placed = module == prefix if prefix == "memspace" else _under(module, prefix)
            if placed and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS in {__file__}"
    return rank


def entry_point_of(module: str) -> str | None:
    for name, prefixes in ENTRY_POINTS.items():
        if any(_under(module, p) for p in prefixes):
            return name
    return None


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {_name(p): p for p in sorted((SRC / "memspace").rglob("*.py"))}


def _typing_only(tree: ast.Module) -> set[int]:
    """The ids of the import statements under `if TYPE_CHECKING:` (never run)."""
    return {id(inner) for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for stmt in node.body for inner in ast.walk(stmt)}


def imports(name: str, path: Path, known: dict[str, Path],
            runtime: bool = False) -> Iterator[tuple[str, int]]:
    """The memspace modules `name` imports, each with its line (a name imported from a
    package counts as its submodule when it is one); with `runtime`, only the imports that
    run (not those under `if TYPE_CHECKING:`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _typing_only(tree) if runtime else set()
    seen: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
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
            if _under(target, "memspace") and (target, node.lineno) not in seen:
                seen.add((target, node.lineno))
                yield target, node.lineno


def graph() -> dict[str, set[str]]:
    """Who imports whom when the code runs (imports for the type checker only are left out:
    they make no cycle at run time)."""
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target, _ in imports(name, path, known, runtime=True):
            while target not in known and "." in target:  # `import memspace.x.y` of a name
                target = target.rpartition(".")[0]
            if target != name and target in known:
                edges[name].add(target)
    return edges


def test_every_module_has_a_layer() -> None:
    for name in modules():
        layer_of(name)


def test_no_import_reaches_a_higher_layer() -> None:
    known = modules()
    upward = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        f" at {path.relative_to(SRC)}:{line}"
        for name, path in known.items()
        for target, line in imports(name, path, known)
        if layer_of(target) > layer_of(name)
    ]
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_no_entry_point_imports_another() -> None:
    known = modules()
    crossing = [
        f"{name} ({entry_point_of(name)}) imports {target} ({entry_point_of(target)})"
        f" at {path.relative_to(SRC)}:{line}"
        for name, path in known.items()
        for target, line in imports(name, path, known)
        if entry_point_of(name) is not None
        and entry_point_of(target) not in (None, entry_point_of(name))
    ]
    assert not crossing, "entry points importing each other:\n" + "\n".join(crossing)


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among the modules (as the path that closes it), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_no_import_cycles() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_catch_what_they_are_for() -> None:
    """The rules themselves: a service importing present, an MCP module importing the REST
    API, and a two-module cycle are each reported."""
    assert layer_of("memspace.present.json") > layer_of("memspace.services.memory_writes")
    assert layer_of("memspace.domain.models") < layer_of("memspace.stores.sqlite.store")
    assert entry_point_of("memspace.mcp.identity") != entry_point_of("memspace.api.auth")
    assert entry_point_of("memspace.cli_memories") == entry_point_of("memspace.cli_code")
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
