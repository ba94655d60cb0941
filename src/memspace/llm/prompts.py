"""Prompt files: `prompts/<task>.v<N>.md`, a `# system` and a `# user` section with `{{name}}` slots.

One file per LLM task (docs/architecture.md). They live inside the package, `src/memspace/prompts/`, so a
wheel or the Docker image carries them as ordinary package data; the repository's top-level
`prompts/` is a symlink to that folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import memspace

_SLOT = re.compile(r"\{\{(\w+)\}\}")
_SECTION = re.compile(r"^# (system|user)[ \t]*$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def prompts_dir() -> Path:
    """The package's prompt folder (memspace/prompts/)."""
    return Path(memspace.__file__).resolve().parent / "prompts"


@dataclass(frozen=True)
class PromptTemplate:
    """A system and a user message with `{{name}}` slots, filled in one pass."""

    name: str
    system: str
    user: str

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(_SLOT.findall(self.system) + _SLOT.findall(self.user))

    def render(self, **values: str) -> tuple[str, str]:
        """The (system, user) texts with every slot filled.

        Values are inserted verbatim: a `{{x}}` inside a value is not expanded again.

        Raises:
            ValueError: a slot has no value, or a value names no slot.
        """
        missing, unknown = self.slots - values.keys(), values.keys() - self.slots
        if missing or unknown:
            raise ValueError(f"prompt {self.name}: missing values {sorted(missing)}, "
                             f"unknown values {sorted(unknown)}")
        return (_SLOT.sub(lambda m: values[m.group(1)], self.system),
                _SLOT.sub(lambda m: values[m.group(1)], self.user))


def load_prompt(name: str, directory: Path | None = None) -> PromptTemplate:
    """Read `<directory>/<name>.md` (e.g. name="extract_facts.v1"); default: prompts_dir().

    Raises:
        FileNotFoundError: no such prompt file.
        ValueError: the file lacks its `# system` or `# user` section.
    """
    path = (directory or prompts_dir()) / f"{name}.md"
    text = _COMMENT.sub("", path.read_text(encoding="utf-8"))
    parts = _SECTION.split(text)
    # split -> [preamble, "system", body, "user", body]
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    if len(parts) != 5 or sections.keys() != {"system", "user"}:
        raise ValueError(f"{path}: needs exactly one '# system' and one '# user' section")
    return PromptTemplate(name, sections["system"].strip(), sections["user"].strip())
