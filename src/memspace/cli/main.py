"""`memspace …`: run the server and administer spaces, keys and memories from a terminal.

The CLI acts as the local operator (every space, read-write) on the store that Settings
names, through the same services the MCP tools call. Each verb registers itself on the root
app (root.py) in the module that defines it; this module imports those modules, in the order
`memspace --help` lists their verbs within each panel, and gives the listing its last touches.
"""

from __future__ import annotations

import inspect

import typer
from typer import _click as click
from typer.core import TyperArgument, TyperOption

# Imported for the verbs they register, in the order each panel of `memspace --help` lists
# them: running and connecting, memories, documents and code, spaces and keys, OAuth,
# security and audit. No verb module imports another, so this order is the listing's.
# isort: off
from memspace.cli import running  # noqa: F401
from memspace.cli import memories  # noqa: F401
from memspace.cli import conflicts  # noqa: F401
from memspace.cli import consolidate  # noqa: F401
from memspace.cli import workflow  # noqa: F401
from memspace.cli import documents  # noqa: F401
from memspace.cli import code  # noqa: F401
from memspace.cli import spaces  # noqa: F401
from memspace.cli import oauth  # noqa: F401
from memspace.cli import security  # noqa: F401
# isort: on
from memspace.cli.root import app

__all__ = ["app", "main"]


def _one_line_summaries(group: typer.Typer) -> None:
    """Give every command a one-line summary for its group's listing: Typer's rich listing keeps
    the line breaks of a docstring's first paragraph, which break rows mid-sentence."""
    for info in group.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        if info.short_help is None and text:
            info.short_help = " ".join(text.split("\n\n")[0].split())
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _one_line_summaries(sub.typer_instance)


_one_line_summaries(app)


PLAIN_TYPES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN",
               "Path": "PATH", "datetime": "DATETIME", "int range": "INTEGER",
               "float range": "FLOAT"}


def _plain_type(param: TyperArgument | TyperOption, ctx: click.Context) -> str | None:
    """A parameter's type in help as click writes it (TEXT, INTEGER, PATH), none for a flag:
    Typer's own labels are Python annotations (`<str>`, `<list[str]>`, `<bool>`)."""
    if isinstance(param, TyperOption) and param.is_flag:
        return None
    label = param.display_type(ctx).strip("<>")
    if label.startswith("list[") and label.endswith("]"):  # a repeatable option: its help says so
        label = label[5:-1]
    if "|" in label:  # a choice: its values
        return f"[{label}]"
    return PLAIN_TYPES.get(label, label.upper())


# Every verb's help, wherever it is rendered from (`memspace … --help`, a test's runner).
TyperOption.display_type_rich = _plain_type  # type: ignore[method-assign,assignment]
TyperArgument.display_type_rich = _plain_type  # type: ignore[method-assign,assignment]


def main() -> None:
    app()


if __name__ == "__main__":
    main()
