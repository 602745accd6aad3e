"""The ``acwc`` fixture: the command line in-process, in an empty folder, on the test database."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.launch import main


@pytest.fixture
def acwc(in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND"]\n[service]\ndatabase_url = "{database_url}"\n'
    )

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
