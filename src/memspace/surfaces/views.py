"""The five MCP Apps views: their names, titles and the built single-file HTML shipped in the
package. Shared by the MCP surface, which serves them as `ui://` resources (mcp/apps.py), and
the browser console, which hosts the same bundles (api/console_pages.py)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class View:
    name: str  # the built file src/memspace/widgets/<name>.html
    title: str
    description: str

    @property
    def uri(self) -> str:
        return f"ui://memspace/{self.name}.html"


SPACE_PICKER = View("space-picker", "memspace: choose a space",
                    "Searchable list of the key's spaces with access level and activity.")
GUIDED_SAVE = View("guided-save", "memspace: save or correct a memory",
                   "Form to save a memory with a category, or correct one and see the UPDATES edge.")
UPLOAD = View("upload", "memspace: upload a file",
              "Upload a PDF, CSV, Markdown or text file and see the facts that came out of it.")
MEMORY_GRAPH = View("memory-graph", "memspace: memory graph",
                    "Force-directed graph of a space's memories and how they update each other.")
CONFLICTS = View("conflicts", "memspace: conflicts",
                 "The space's open conflicts side by side; settle one in two clicks.")
VIEWS = (SPACE_PICKER, GUIDED_SAVE, UPLOAD, MEMORY_GRAPH, CONFLICTS)


def view_html(view: View) -> str:
    """The built single-file view shipped in the package (`make widgets` rebuilds it)."""
    return (resources.files("memspace") / "widgets" / f"{view.name}.html").read_text("utf-8")
