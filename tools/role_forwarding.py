"""How many public methods of the store classes only pass the call on. Prints; asserts nothing.

A method passes the call on when its body (its docstring aside) is one call of a module
function (`return memories.one(...)`, `return page(...)`) or of another object's method held on
`self` (`return self._cache.holds(...)`), rather than running a statement itself. Running a
statement through the connection (`self._db.read(...)`, `.write`, `.execute`, `.run`) is not
passing on. Parsed with `ast` from src/memspace/stores (the Cypher texts under cypher/ left
out); nothing is imported.

Usage: .venv/bin/python tools/role_forwarding.py [SRC]   (SRC: a tree's src/, default this one's)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RUNS_A_STATEMENT = {"read", "write", "execute", "executemany", "run", "query"}


def passed_on(method: ast.FunctionDef) -> str | None:
    """What the method hands its call to, or None when it does work of its own."""
    body = [s for s in method.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return | ast.Expr):
        return None
    call = body[0].value
    if not isinstance(call, ast.Call):
        return None
    target = call.func
    if isinstance(target, ast.Name):
        return target.id
    if not isinstance(target, ast.Attribute) or target.attr in RUNS_A_STATEMENT:
        return None
    held = target.value
    if isinstance(held, ast.Name) and held.id != "self":
        return f"{held.id}.{target.attr}"
    if (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name)
            and held.value.id == "self"):
        return f"self.{held.attr}.{target.attr}"
    return None


def main() -> None:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    stores = src / "memspace" / "stores"
    public = 0
    only_pass_on: list[str] = []
    found: dict[str, list[str]] = {}
    for path in sorted(stores.rglob("*.py")):
        if "cypher" in path.parts:
            continue
        for cls in ast.parse(path.read_text()).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            methods = [m for m in cls.body
                       if isinstance(m, ast.FunctionDef) and not m.name.startswith("_")]
            public += len(methods)
            passing = [f"{m.name} -> {to}" for m in methods if (to := passed_on(m))]
            name = f"{path.relative_to(stores)}:{cls.name}"
            if passing:
                found[name] = passing
            if methods and len(passing) == len(methods):
                only_pass_on.append(name)
    total = sum(len(v) for v in found.values())
    print(f"stores/ in {src}: {public} public methods, {total} only pass the call on; "
          f"{len(only_pass_on)} classes do nothing else")
    for name, passing in found.items():
        print(f"  {name}: {', '.join(passing)}")
    for name in only_pass_on:
        print(f"  only passes calls on: {name}")


if __name__ == "__main__":
    main()
