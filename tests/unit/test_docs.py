"""The docs keep up with the code: every setting, MCP tool, CLI verb, error code and REST path the
code has is named in README.md or a docs/*.md file (any of them: each feature documents itself
in a file of its own), and every command the README's first screen tells a newcomer to run
exists. What the code offers is read from the code itself, never from a list kept here."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

from memspace.cli.main import app as cli_app
from memspace.domain.errors import MemspaceError
from memspace.mcp.errors import CODES
from memspace.mcp.server import build_mcp_server
from memspace.startup.app import create_app
from memspace.startup.container import Container, build
from memspace.startup.settings import Settings
from memspace.stores.sqlite import SqliteStore
from tests.support.fakes import HashEmbedder, MemoryBlobStore, StepClock

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_LINES = 300
FIRST_SCREEN_LINES = 60  # the Development heading must start within these
# Variables read straight from the environment outside Settings (the model fetch runs before any
# server exists): found by scanning the sources for environ.get("MEMSPACE_…") / getenv.
ENV_READ = re.compile(r"""(?:environ\.get\(|environ\[|getenv\()\s*["'](MEMSPACE_[A-Z0-9_]+)["']""")


def docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8")
                     for p in [README, *sorted((ROOT / "docs").glob("*.md"))])


def missing(names: set[str], text: str) -> list[str]:
    return sorted(name for name in names if name not in text)


@pytest.fixture(scope="module")
def container() -> Iterator[Container]:
    app = build(Settings(_env_file=None), store=SqliteStore(":memory:"),  # type: ignore[call-arg]
                embedder=HashEmbedder(), clock=StepClock(), blobs=MemoryBlobStore())
    yield app
    app.close()


def env_vars() -> set[str]:
    names = {f"MEMSPACE_{field.upper()}" for field in Settings.model_fields}
    for source in (ROOT / "src" / "memspace").rglob("*.py"):
        names |= set(ENV_READ.findall(source.read_text(encoding="utf-8")))
    return names


def cli_verbs() -> set[str]:
    """`memspace serve`, `memspace key create`, … as a person types them."""
    verbs: set[str] = set()

    def walk(group: TyperGroup, prefix: str) -> None:
        for name, command in group.commands.items():
            if isinstance(command, TyperGroup):
                walk(command, f"{prefix} {name}")
            else:
                verbs.add(f"{prefix} {name}")

    root = typer.main.get_command(cli_app)
    assert isinstance(root, TyperGroup)
    walk(root, "memspace")
    return verbs


def error_codes() -> set[str]:
    def below(kind: type[MemspaceError]) -> Iterator[type[MemspaceError]]:
        for sub in kind.__subclasses__():
            yield sub
            yield from below(sub)

    # the product's own types (tests define error types of their own to probe the mapping)
    return set(CODES) | {kind.code for kind in below(MemspaceError)
                         if kind.__module__.startswith("memspace.")}


def mcp_names(container: Container) -> set[str]:
    server = build_mcp_server(container)
    tools = asyncio.run(server.list_tools())
    prompts = asyncio.run(server.list_prompts())
    return {tool.name for tool in tools} | {prompt.name for prompt in prompts}


def rest_paths(container: Container) -> set[str]:
    """Every path the HTTP app serves (REST from its OpenAPI, OAuth's routes beside it), with
    path parameters written `{}` so `{memory_id}` in the code matches `{id}` in the docs."""
    api = create_app(container, warm_up=False)
    paths = set(api.openapi()["paths"])
    paths |= {path for path in (getattr(route, "path", "") for route in api.routes)
              if path and path not in ("/docs/oauth2-redirect", "/redoc", "/openapi.json")}
    return {re.sub(r"\{[^}]*\}", "{}", path) for path in paths}


def test_every_setting_is_documented() -> None:
    names = env_vars()
    assert "MEMSPACE_MAX_PAGE_SIZE" in names and "MEMSPACE_MAVEN_URL" in names
    assert missing(names, docs_text()) == []


def test_every_setting_is_in_the_settings_reference() -> None:
    # A newcomer looks for a variable in one place: operations.md's table (or contract.md),
    # not in the feature page that introduced it.
    reference = "\n".join((ROOT / "docs" / name).read_text(encoding="utf-8")
                          for name in ("operations.md", "contract.md"))
    assert missing(env_vars(), reference) == []


def test_every_mcp_tool_and_prompt_is_documented(container: Container) -> None:
    names = mcp_names(container)
    assert {"search_memory", "add_memory", "get_context", "memory_graph_ui"} <= names
    assert missing(names, docs_text()) == []


def test_every_cli_verb_is_documented() -> None:
    verbs = cli_verbs()
    assert {"memspace serve", "memspace key create", "memspace oauth revoke"} <= verbs
    assert missing(verbs, docs_text()) == []


def test_every_error_code_is_documented() -> None:
    codes = error_codes()
    assert {"stale_version", "unreadable_document"} <= codes
    assert missing({f"`{code}`" for code in codes}, docs_text()) == []


def test_every_rest_path_is_documented(container: Container) -> None:
    paths = rest_paths(container)
    assert {"/readyz", "/v1/search", "/v1/memories/{}/correct", "/authorize/consent"} <= paths
    text = re.sub(r"\{[^}]*\}", "{}", docs_text())
    assert missing(paths, text) == []


def test_the_contract_names_every_tool_code_rest_path_and_verb(container: Container) -> None:
    # docs/contract.md is the index a newcomer reads (README: "tools, parameters, error codes,
    # REST, CLI"): each name is there, with the details on the feature page it links to.
    contract = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    assert missing(mcp_names(container), contract) == []
    assert missing({f"`{code}`" for code in error_codes()}, contract) == []
    assert missing(cli_verbs(), contract) == []
    v1 = {path for path in rest_paths(container) if path.startswith("/v1/")}
    assert "/v1/verify" in v1 and missing(v1, re.sub(r"\{[^}]*\}", "{}", contract)) == []


def first_screen() -> list[str]:
    """The README up to the section after *Development*: what a newcomer reads and runs first."""
    lines = README.read_text(encoding="utf-8").splitlines()
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    development = next(i for i in headings if lines[i] == "## Development")
    after = next((i for i in headings if i > development), len(lines))
    return lines[:after]


def test_the_readme_is_short_and_development_comes_on_the_first_screen() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES
    assert "## Development" in lines[:FIRST_SCREEN_LINES]
    screen = "\n".join(first_screen())
    for must in ("git clone", "make run", "/readyz", "make test", "Python 3.11"):
        assert must in screen, must


def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z0-9-]+):", makefile, flags=re.MULTILINE))


def test_every_command_of_the_first_screen_exists(container: Container) -> None:
    screen = "\n".join(first_screen())
    targets = make_targets()
    named = set(re.findall(r"\bmake ([a-z0-9-]+)", screen))
    assert {"run", "test"} <= named
    assert sorted(named - targets) == []
    verbs = cli_verbs() | {"memspace --version"}
    # the program as typed: `memspace …`, .venv/bin/memspace …, or a line of a shell block
    said = {f"memspace {v}" for v in re.findall(
        r"(?:\.venv/bin/|`|^[ \t]*)memspace (-?-?[a-z][a-z-]*(?: [a-z][a-z-]*)?)", screen, re.MULTILINE)}
    unknown = [s for s in said if s not in verbs and s.rsplit(" ", 1)[0] not in verbs
               and not s.startswith("memspace sqlite store")]  # serve's own output
    assert unknown == []
    urls = set(re.findall(r"http://127\.0\.0\.1:8000(/[a-z/]+)", screen))
    assert "/readyz" in urls
    served = rest_paths(container) | {"/mcp"}
    assert sorted(urls - served) == []


def test_no_doc_cites_a_file_outside_the_repository() -> None:
    for path in [README, ROOT / "tests" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "DESIGN" not in path.read_text(encoding="utf-8"), path


# Docs other branches add in parallel; a link to one of these may land before the file does.
ANNOUNCED = {"clients.md", "evidence.md", "lifecycle.md", "security.md", "extraction.md",
             "conversations.md"}


def test_links_between_docs_resolve() -> None:
    for doc in [README, ROOT / "tests" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            resolved = (doc.parent / target).resolve()
            assert resolved.exists() or resolved.name in ANNOUNCED, f"{doc.name} links {target}"
