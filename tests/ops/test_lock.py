"""The lock files agree with pyproject.toml (issue 18): every dependency the ranges name is pinned,
at a version inside its range, with hashes; the test lock holds the runtime lock's pins."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\;]+)")


def pins(lock: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lock.read_text().splitlines():
        if match := PIN.match(line):
            found[canonicalize_name(match[1])] = match[2]
    return found


def project() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {"runtime": data["dependencies"], "test": data["optional-dependencies"]["test"]}


@pytest.mark.parametrize(
    ("lock", "groups"),
    [("requirements.lock", ("runtime",)), ("requirements-test.lock", ("runtime", "test"))],
)
def test_every_dependency_is_pinned_inside_its_range(lock: str, groups: tuple[str, ...]) -> None:
    pinned = pins(ROOT / lock)
    wanted = [Requirement(r) for group in groups for r in project()[group]]
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is not in {lock}: run pip-compile again"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{lock} pins {name}=={pinned[name]}, outside {requirement.specifier}"
        )


def test_every_pin_has_hashes_and_the_two_locks_agree() -> None:
    for lock in ("requirements.lock", "requirements-test.lock"):
        text = (ROOT / lock).read_text()
        assert text.count("==") == len(pins(ROOT / lock))
        blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[-1])
        assert all("--hash=sha256:" in b for b in blocks if PIN.match(b)), lock
    runtime, test = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-test.lock")
    assert {name: test.get(name) for name in runtime} == runtime
