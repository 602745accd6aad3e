"""The slow reference engine of the tests is frozen: comparing the fast engine with a reference
that changes with it proves nothing. Its file's SHA-256 is the recorded one; a change to it
needs a reason (a rule of C.04.3 that changed) and the new hash in the commit message."""

from __future__ import annotations

import hashlib
from pathlib import Path

REFERENCE = Path(__file__).parent / "dutch_reference.py"
RECORDED = "84b821901371912ef9f92cd1ee11207ebc3fa070d084b51b1cb9eaa60b5fdf17"


def test_the_reference_engine_is_unchanged() -> None:
    digest = hashlib.sha256(REFERENCE.read_bytes()).hexdigest()
    assert digest == RECORDED, (
        "tests/rules/dutch_reference.py changed: it is frozen; if a rule of C.04.3 changed, "
        "record the new hash here and give the reason in the commit message"
    )
