"""Bad input of every kind: generated player texts, TD command lines and config files.

Each input either works or is refused with one clear sentence; nothing crashes, and a refusal
leaves every table exactly as it was (a dump of all tables before and after). The texts go
through the one door for a player's text (``services.texts``) on a real database (the web match
room's door, and the TD relay's), the command lines through ``bot.launch.main`` in-process, the
config files through ``bot.config.load_config``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from bot.cli.main import build_parser
from bot.config import ConfigError, load_config
from bot.launch import main
from storage.db import Database
from tests.robustness.dump import dump_tables
from tests.weekly.harness import Week

# --- player texts ------------------------------------------------------------------------------

VERBS = (
    "offer", "accept", "decline", "choose", "claim", "claim win", "bid", "rps", "help", "ready",
    "withdraw", "status", "cancel", "propose", "agree",
)  # fmt: skip
WORDS = (
    "mon", "tue", "wed", "thu", "fri", "sat", "sun", "today", "tomorrow", "18:00", "25:61",
    "2021-10-15", "2021-02-30", "21:00", "1:30", "0:00", "99:99", "rock", "paper", "scissors",
    "lizard", "white", "black", "-", ",", "UTC", "+02:00", "999999999999", "-1", "1e9", "nan",
    "\u0000", "\u202e", "é", "👑", "offer", "accept", "\n", "  ", "'; DROP TABLE matches; --",
)  # fmt: skip

player_texts = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=string.printable, max_size=80),
    st.lists(st.sampled_from(VERBS + WORDS), max_size=8).map(" ".join),
    st.tuples(st.sampled_from(VERBS), st.lists(st.sampled_from(WORDS), max_size=5)).map(
        lambda t: " ".join((t[0], *t[1]))
    ),
    st.integers(1000, 3000).map(lambda n: "offer " * (n // 6)),  # longer than any command
)
senders = st.sampled_from(("alice", "Bob", "BOB", "carol", "mallory", "", "odmwnd", "a" * 40))
TEXTS_PER_EXAMPLE = 20


class Writes:
    """Every statement that is not a read, as the database driver sees it."""

    def __init__(self, db: Database) -> None:
        self.statements: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: object, cursor: object, statement: str, *args: object) -> None:
        if not statement.lstrip().upper().startswith(("SELECT", "PRAGMA", "BEGIN", "ROLLBACK")):
            self.statements.append(statement.split("\n")[0][:80])


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(st.tuples(senders, player_texts), min_size=TEXTS_PER_EXAMPLE,
                      max_size=TEXTS_PER_EXAMPLE))  # fmt: skip
async def test_generated_player_texts_are_answered_and_refusals_change_nothing(
    week: Week, batch: list[tuple[str, str]]
) -> None:
    state = week.__dict__.setdefault("_robust", {})
    if not state:
        state["match"] = (await week.publish(("alice", "bob")))[0]
        state["writes"] = Writes(week.db)
    match_id: int = state["match"]
    writes: Writes = state["writes"]
    before = await dump_tables(week.db)
    accepted = 0
    for player, text in batch:
        async with week.db.uow() as uow:
            writes.statements.clear()
            reply = await week.services.texts.handle(
                uow, match_id=match_id, player=player, text=text, now=week.clock.now(), via="web"
            )
            assert reply.text.strip(), (player, text)
            assert "Traceback" not in reply.text
            if reply.ok:
                if reply.changed:
                    await uow.commit()
                    assert writes.statements  # the listener does see writes
                    accepted += 1
                continue
            assert reply.reason, (player, text, reply.text)
            assert not reply.changed
            await uow.commit()  # even a caller that commits a refusal stores nothing
            assert writes.statements == [], (player, text, reply.text)
    if not accepted:
        assert await dump_tables(week.db) == before


# --- TD command lines -------------------------------------------------------------------------

EXCLUDED = {"run", "demo", "db", "registration", "pair", "trf"}
"""Commands that serve forever, run a season, change the schema, call Lichess or read files."""


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[
    tuple[tuple[str, ...], argparse.ArgumentParser]
]:  # fmt: skip
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(path, parser)]
    found = []
    for name, sub in sorted(subs[0].choices.items()):
        if not path and name in EXCLUDED:
            continue
        found += _leaves(sub, (*path, name))
    return found


LEAVES = _leaves(build_parser())
VALUES = (
    "alice", "Bob", "carol", "odmwnd", "ODMWND", "nobody", "1", "2", "0", "-1", "999999", "1.5",
    "x", "", " ", "white", "black", "1-0", "0-1", "1/2-1/2", "draw", "bid", "rps", "rock",
    "1:30", "2021-10-15", "qualification", "candidates", "final", "--json", "--yes", "--by",
    "é👑", "a" * 300, "\t",
)  # fmt: skip
values = st.one_of(st.sampled_from(VALUES), st.text(alphabet=string.printable, max_size=12))


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    path, parser = draw(st.sampled_from(LEAVES))
    argv = list(path)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.dest == "config":
            continue
        if action.dest == "by" and draw(st.integers(0, 4)):  # mostly as the configured TD
            argv += ["--by", "ODMWND"]
            continue
        if not draw(st.booleans()) and not (action.required and draw(st.booleans())):
            continue
        if action.option_strings:
            argv.append(action.option_strings[-1])
        if action.nargs == 0:
            continue
        count = 2 if action.nargs == 2 else 1
        for _ in range(count):
            if action.choices is not None and draw(st.booleans()):
                argv.append(draw(st.sampled_from(sorted(action.choices))))
            else:
                argv.append(draw(values))
    argv += draw(st.lists(values, max_size=2))
    return argv


def _setup(in_tmp: Path, database_url: str) -> None:
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND"]\n[service]\ndatabase_url = "{database_url}"\n'
    )
    assert main(["db", "upgrade"]) == 0
    assert main(["tournament", "create"]) == 0
    for name, rating in (("Alice", "2100"), ("Bob", "2000"), ("Carol", "1900"), ("Dave", "1800")):
        assert main(["player", "add", name, "--rating", rating, "--by", "ODMWND"]) == 0
    assert main(["round", "pair", "--by", "ODMWND"]) == 0
    assert main(["round", "approve", "--by", "ODMWND"]) == 0


def _dump(database_url: str) -> dict[str, list[tuple[object, ...]]]:
    async def go() -> dict[str, list[tuple[object, ...]]]:
        db = Database(database_url)
        try:
            return await dump_tables(db)
        finally:
            await db.dispose()

    return asyncio.run(go())


def test_generated_td_command_lines_work_or_are_refused_in_one_line_changing_nothing(
    in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(in_tmp, database_url)
    capsys.readouterr()
    seen: dict[int, int] = {}

    @settings(max_examples=150, deadline=None, database=None, phases=[Phase.generate])
    @given(argv=command_lines())
    def check(argv: list[str]) -> None:
        before = _dump(database_url)
        try:
            code = main(argv)
        except SystemExit as e:  # only --help-like exits may leave argparse
            code = int(e.code or 0)
        out, err = capsys.readouterr()
        seen[code] = seen.get(code, 0) + 1
        assert "unexpected error" not in err, (argv, err)
        assert "Traceback" not in err + out, argv
        if code == 0:
            return
        assert code in (1, 2), (argv, code, err)
        lines = err.strip().splitlines()
        assert lines, (argv, err)
        assert lines[0].startswith("acwc: "), (argv, err)
        assert len(lines[0]) > len("acwc: error: ") + 5, (argv, err)
        assert _dump(database_url) == before, (argv, err)

    check()
    assert seen.get(1, 0) + seen.get(2, 0) > 0  # the generator reaches refusals


# --- config files ------------------------------------------------------------------------------

KEYS = (
    "tournament.name", "tournament.tds", "tournament.team", "tournament.nope",
    "service.database_url", "service.lichess_url", "service.web_port", "service.log_level",
    "service.request_timeout_seconds", "service.bot_account", "service.public_url",
    "service.token", "secrets.x", "rules.formats.qualification.games",
    "rules.formats.qualification.clinch_at", "rules.formats.final.tiebreak",
    "rules.formats.final.max_weeks", "rules.formats.candidates.tiebreak",
    "rules.time_control.limit_seconds", "rules.offers.min_gap", "rules.offers.reply_within",
    "rules.conduct.no_show_grace", "rules.conduct.no_show_second_alert",
    "rules.armageddon.black_seconds", "rules.armageddon.min_white_seconds",
    "rules.stages.pool_size", "rules.stages.qualifiers", "rules.calendar.first_publication",
    "rules.calendar.publish_weekday", "rules.seeding.title_holder", "rules.seeding.runner_up",
    "rules.eligibility.peak_window_start", "rules.nope.x", "nope",
)  # fmt: skip
TOML_VALUES = (
    '"x"', "1", "0", "-5", "1.5", "5.5", "true", "false", '"none"', '""', "[]", '["a", "a"]',
    '["ODMWND", "Shiaxou"]', '"3h"', '"1h30m"', '"-3h"', '"23:59"', '"25:00"', '"friday"',
    '"funday"', "2021-10-12", '"2021-10-12"', "2021-03-01T00:00:00Z", '"2021-03-01T00:00:00"',
    "1979-05-27T07:32:00-08:00", "12:00:00", '"sandbox"', '"http://127.0.0.1:9"',
    '"https://lichess.org"', '"sqlite+aiosqlite:///x.db"', '"mysql://x"', '"armageddon"',
    '"repeat_then_armageddon"', "{ a = 1 }", "99999999999999999999", "inf", "nan", '"DEBUG"',
)  # fmt: skip


@st.composite
def config_texts(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(KEYS))
        section, _, leaf = key.rpartition(".")
        value = draw(st.one_of(st.sampled_from(TOML_VALUES), st.text(max_size=10)))
        lines.append(f"[{section}]\n{leaf} = {value}" if section else f"{leaf} = {value}")
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=30)))
    return "\n".join(lines) + "\n"


@settings(max_examples=600, deadline=None)
@given(text=config_texts(), token=st.sampled_from((None, "lip_x")))
def test_generated_config_files_load_or_name_what_is_wrong(text: str, token: str | None) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(text, encoding="utf-8")
        environ = {"ACWC_LICHESS_TOKEN": token} if token else {}
        error: ConfigError | None = None
        try:
            config = load_config(path, environ)
        except ConfigError as e:
            error = e
        if error is not None:
            assert str(error).strip()
            assert "\n" not in error.problem.strip() or "TOML" in error.problem
            if error.key:
                top = error.key.split(".")[0]
                assert top in ("tournament", "service", "rules", "secrets") or top in text
            return
        assert config.source == path
        assert isinstance(config.rules.calendar.first_publication, dt.date)
