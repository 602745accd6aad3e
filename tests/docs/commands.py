"""The shell commands the documents give: every line of a fenced ``sh``, ``bash``, ``shell`` or
``console`` block, the ``$ `` lines of an unlabelled block that shows a session, and any line
indented as code that starts with ``$ ``. The doc tests read the documents through this module
only, so a command cannot hide from them in a block of another spelling."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL = frozenset({"sh", "bash", "shell", "console", "zsh", "shell-session", "sh-session"})
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
INDENTED_PROMPT = re.compile(r"^(?: {4,}|\t)\$ (.+)$")


@dataclass(frozen=True, slots=True)
class Command:
    document: str  # relative to the repository
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def documents() -> list[Path]:
    """README.md, ARCHITECTURE.md and every document of docs/."""
    return [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]


def shell_commands(path: Path) -> list[Command]:
    """The commands of ``path``, in order (comments, blank lines and a session's output left
    out; a line ending in a backslash joined to the next)."""
    name = str(path.relative_to(ROOT))
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Command] = []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if opened is None:
            prompt = INDENTED_PROMPT.match(lines[i])
            if prompt:
                found.append(Command(name, i + 1, prompt.group(1).strip()))
            i += 1
            continue
        fence, language = opened.group(2), opened.group(3).lower()
        body_start = i + 1
        i += 1
        closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while i < len(lines) and not closing.match(lines[i]):
            i += 1
        body = lines[body_start:i]
        i += 1  # the closing fence
        prompts = any(line.lstrip().startswith("$ ") for line in body)
        if language in SHELL or (not language and prompts):
            found += _block(name, body_start + 1, body, prompts_only=prompts)
    return found


def _block(name: str, first: int, body: list[str], *, prompts_only: bool) -> list[Command]:
    found = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(body, first):
        line = raw.strip()
        if pending is not None:
            start, text = pending
            line = f"{text} {line}"
            number = start
            pending = None
        elif prompts_only:
            if not line.startswith("$ "):
                continue  # the session's output
            line = line[2:].strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending = (number, line[:-1].rstrip())
            continue
        found.append(Command(name, number, line))
    return found


def all_commands() -> list[Command]:
    return [command for path in documents() for command in shell_commands(path)]
