"""The ``acwc`` fixture: the command line in-process, in an empty folder, on the test database."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.launch import main
from tests.acwc_words import as_td

TD = "ODMWND"


@pytest.fixture
def acwc(in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["{TD}"]\n[service]\ndatabase_url = "{database_url}"\n'
    )

    def run(*args: str, by: str | None = TD) -> tuple[int, str, str]:
        """Run ``acwc ARGS``; a TD command is run ``--by`` the config's TD unless the test
        names another (``by=``) or none (``by=None``)."""
        code = main(as_td(args, by))
        out, err = capsys.readouterr()
        return code, out, err

    return run
