"""The product's documents stand alone (issue 30): a clone has README, ARCHITECTURE.md, the
config and docs/, and nothing beside it, so they name nothing outside the repository, and every
file a document links to is in the repository."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The places and files of the machine the project was written on, which a clone does not have.
OUTSIDE = re.compile(
    r"\.\./shared|/work/|\.\./\.library|\bDESIGN\.md|\bSTYLE\.md|LICHESS-CONTRACT|"
    r"acwc-2021-rules|HELPERS\.md|pairing-cases"
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def documents() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "config.example.toml"]
    found += sorted((ROOT / "docs").rglob("*.md"))
    found += sorted(p for p in (ROOT / "deploy").rglob("*") if p.is_file())
    return [p for p in found if p.exists()]


def test_no_document_names_anything_outside_the_repository() -> None:
    named = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in documents()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert named == []


def test_every_linked_file_is_in_the_repository() -> None:
    broken = []
    for path in documents():
        if path.suffix != ".md":
            continue
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_walk_sees_the_documents() -> None:
    names = {p.name for p in documents()}
    assert {"README.md", "ARCHITECTURE.md", "config.example.toml", "design.md"} <= names


def test_a_service_runs_captured_output_is_neither_committed_nor_committable() -> None:
    """``svc.err`` and ``svc.out`` (a service run's output) were once committed (issue 30)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = ["svc.err", "svc.out", "deploy/svc.err"]
    tracked = subprocess.run(
        ["git", "ls-files", "--", *names], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == []
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert ignored == names
