"""The ``acwc pair`` subcommand, run in-process through the real command line on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.launch import main

DATA = Path(__file__).parent.parent / "data"


def test_pair_writes_the_pairing_file(in_tmp: Path) -> None:
    out = in_tmp / "out.txt"
    assert main(["pair", str(DATA / "bbp_dutch_2025_c9.trf"), "-p", str(out)]) == 0
    assert out.read_text() == "3\n2 1\n3 5\n4 0\n"


def test_pair_reports_invalid_input_on_stderr(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = in_tmp / "bad.trf"
    bad.write_text("001    1" + " " * 81 + "     2 q 1\nXXR 3\n")
    assert main(["pair", str(bad), "-p", str(in_tmp / "out.txt")]) == 3
    assert "line 1, column 97" in capsys.readouterr().err
    assert not (in_tmp / "out.txt").exists()


def test_pair_reports_a_missing_file(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pair", "nope.trf"]) == 3
    assert "cannot read nope.trf" in capsys.readouterr().err


def test_pair_refuses_binary_input(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = in_tmp / "binary.trf"
    binary.write_bytes(b"012 x\nXXR 3\n001    1 \x89PNG\r\n\x1a\n\x00\x00")
    assert main(["pair", str(binary), "-p", str(in_tmp / "out.txt")]) == 3
    assert "line 3, column 10: byte 0x89 is not UTF-8" in capsys.readouterr().err
    assert not (in_tmp / "out.txt").exists()
