"""The import layers of docs/architecture.md, checked on the source: every module of
src/memspace is parsed with `ast` (nothing is imported), and each import is held to the rules.

- A module imports only from its own layer or the layers below it.
- An entry point (a way into memspace) never imports another entry point; what two of them
  share lives in `surfaces/` below them, and only the launchers start them.
- No import cycles between modules (an import made inside a function counts too).
- services/ is made of use-case packages: a module outside a package imports only what the
  package's `__init__` exports (never one of its modules), and no two packages import each
  other, however indirectly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# Lowest first. A module belongs to the first group whose prefix names it (the longest wins).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # runtime/: process helpers (one load for many callers, the heap's size) with no memspace
    # concept in them.
    ("domain", ("memspace", "memspace.domain", "memspace.runtime")),
    ("adapters", ("memspace.stores", "memspace.embeddings", "memspace.llm", "memspace.ingest",
                  "memspace.code")),
    # What several use cases share (paging, the clock, the audit log, time slices), below them.
    ("service helpers", ("memspace.services.shared",)),
    ("services", ("memspace.services",)),
    ("present", ("memspace.present",)),
    # startup/: the settings, the store and the model built from them, the services built over
    # them (the container) and the metrics around them; surfaces/: what entry points share.
    ("composition", ("memspace.startup", "memspace.surfaces")),
    ("entry points", ("memspace.api", "memspace.mcp", "memspace.cli")),
    # What starts the entry points: the `memspace` command's assembly and its serve, stdio,
    # hook and doctor verbs, and the HTTP server, which mounts REST and MCP behind one middleware.
    ("launchers", ("memspace.cli.main", "memspace.cli.__main__", "memspace.cli.running",
                   "memspace.startup.app")),
]

# The entry points; a launcher is none of them (it starts them).
ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    "api": ("memspace.api",),
    "mcp": ("memspace.mcp",),
    "cli": ("memspace.cli",),
}
LAUNCHERS = len(LAYERS) - 1
# At most this many modules at the package's root besides __init__: the rest sit in the
# packages the layers name, so a folder tells what a module is for.
ROOT_MODULES = 8
# The CLI's modules that register no verb: the verb modules import only these (and nothing of
# each other), so the order cli/main.py imports them in is the order `memspace --help` lists.
CLI_SHARED = ("memspace.cli.common", "memspace.cli.root", "memspace.cli.ingest",
              "memspace.cli.hooks", "memspace.cli.doctor")


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
    if layer_of(module) == LAUNCHERS:
        return None
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


SERVICES = "memspace.services"


def package_of(module: str) -> str | None:
    """The use-case package of services/ a module belongs to (its name under services/), or
    None for a module outside the packages (a module at services/' root counts as outside)."""
    parts = module.split(".")
    if module.startswith(SERVICES + ".") and len(parts) >= 3:
        package = ".".join(parts[:3])
        if (SRC / Path(*parts[:3]) / "__init__.py").exists():
            return package
    return None


def reaches_inside(importer: str, target: str) -> bool:
    """Whether `importer` imports one of a package's modules from outside that package (what
    the package offers is what its `__init__` exports)."""
    package = package_of(target)
    return package is not None and target != package and package_of(importer) != package


def package_graph() -> dict[str, set[str]]:
    """Which use-case package imports which, every import counted (those for the type checker
    too: two packages that need each other's types are one concern split in two)."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        if (mine := package_of(name)) is None:
            continue
        edges.setdefault(mine, set())
        for target, _ in imports(name, path, known):
            if (theirs := package_of(target)) is not None and theirs != mine:
                edges[mine].add(theirs)
    for targets in list(edges.values()):
        for target in targets:
            edges.setdefault(target, set())
    return edges


def test_the_package_root_holds_few_modules() -> None:
    root = sorted(p.name for p in (SRC / "memspace").glob("*.py") if p.name != "__init__.py")
    assert len(root) <= ROOT_MODULES, f"modules at the root of src/memspace: {root}"


def test_no_cli_verb_module_imports_another() -> None:
    known = modules()
    verbs = [name for name in known if _under(name, "memspace.cli") and name != "memspace.cli"
             and layer_of(name) != LAUNCHERS and name not in CLI_SHARED]
    crossing = [f"{name} imports {target} at {known[name].relative_to(SRC)}:{line}"
                for name in verbs for target, line in imports(name, known[name], known)
                if target in verbs and target != name]
    assert len(verbs) >= 8 and not crossing, "CLI verb modules importing each other:\n" + \
        "\n".join(crossing)


def test_services_are_use_case_packages() -> None:
    """At most eight modules stay at the root of services/; the rest sit in packages."""
    root = sorted(p.name for p in (SRC / "memspace" / "services").glob("*.py"))
    assert len(root) <= 8, f"modules at the root of services/: {root}"


def test_packages_are_used_through_what_they_export() -> None:
    known = modules()
    inside = [
        f"{name} imports {target} at {path.relative_to(SRC)}:{line}: import it from "
        f"{package_of(target)}, adding the name to that package's __init__ if it is offered"
        for name, path in known.items()
        for target, line in imports(name, path, known)
        if reaches_inside(name, target)
    ]
    assert not inside, "imports of another package's modules:\n" + "\n".join(inside)


def test_no_cycle_between_service_packages() -> None:
    cycle = find_cycle(package_graph())
    assert cycle is None, "service packages importing each other: " + " -> ".join(cycle or [])


def test_the_checks_catch_what_they_are_for() -> None:
    """The rules themselves: a service importing present, an MCP module importing the REST
    API, and a two-module cycle are each reported."""
    assert layer_of("memspace.present.json") > layer_of("memspace.services.memories.memory_writes")
    assert layer_of("memspace.domain.models") < layer_of("memspace.stores.sqlite.store")
    assert entry_point_of("memspace.mcp.identity") != entry_point_of("memspace.api.auth")
    assert entry_point_of("memspace.cli.memories") == entry_point_of("memspace.cli.code")
    assert entry_point_of("memspace.cli.running") is None  # a launcher
    assert layer_of("memspace.startup.app") > layer_of("memspace.cli.memories")
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer_of("memspace.services.shared.paging") < layer_of("memspace.services.search.search")
    assert reaches_inside("memspace.startup.container", "memspace.services.search.search")
    assert reaches_inside("memspace.services.briefing.briefing", "memspace.services.search.ranking")
    assert not reaches_inside("memspace.services.briefing.briefing", "memspace.services.search")
    assert not reaches_inside("memspace.services.search.search", "memspace.services.search.ranking")
