"""The ``acwc pair`` subcommand, run in-process on real files."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bot.cli import pair_cmd

DATA = Path(__file__).parent.parent / "data"


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="acwc")
    pair_cmd.register(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_pair_writes_the_pairing_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    arguments = _parse("pair", str(DATA / "bbp_dutch_2025_c9.trf"), "-p", str(out))
    assert arguments.handler(arguments) == 0
    assert out.read_text() == "3\n2 1\n3 5\n4 0\n"


def test_pair_reports_invalid_input_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.trf"
    bad.write_text("001    1" + " " * 81 + "     2 q 1\nXXR 3\n")
    arguments = _parse("pair", str(bad), "-p", str(tmp_path / "out.txt"))
    assert arguments.handler(arguments) == 3
    assert "line 1, column 97" in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()
