"""The service clock: a fake that moves only when told, and the one real reading of time."""

from __future__ import annotations

import ast
import asyncio
import datetime as dt
import pathlib

import pytest
from lichess_helpers import START

from bot.runtime.clock import FakeClock, SystemClock

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_fake_clock_refuses_naive_times() -> None:
    with pytest.raises(ValueError, match="naive"):
        FakeClock(dt.datetime(2021, 10, 12))


async def test_advance_wakes_due_sleepers_in_time_order() -> None:
    clock = FakeClock(START)
    woke: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(name)

    tasks = [
        asyncio.create_task(sleeper("late", 120)),
        asyncio.create_task(sleeper("early", 30)),
        asyncio.create_task(sleeper("never", 3600)),
    ]
    await clock.wait_for_sleepers(3)
    await clock.advance_and_settle(dt.timedelta(seconds=29))
    assert woke == []
    await clock.advance_and_settle(dt.timedelta(seconds=91))
    assert woke == ["early", "late"]
    assert clock.now() == START + dt.timedelta(seconds=120)
    assert clock.sleepers == 1
    tasks[2].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert clock.sleepers == 0


async def test_sleep_until_a_past_time_returns_at_once() -> None:
    clock = FakeClock(START)
    await clock.sleep_until(START - dt.timedelta(hours=1))
    await clock.sleep(0)
    assert clock.now() == START


async def test_auto_mode_jumps_to_each_wake_up_time() -> None:
    clock = FakeClock(START, auto=True)
    await clock.sleep(3600)
    assert clock.now() == START + dt.timedelta(hours=1)
    await clock.sleep_until(START + dt.timedelta(minutes=30))  # already past: no going back
    assert clock.now() == START + dt.timedelta(hours=1)


def test_fake_clock_never_goes_backwards() -> None:
    clock = FakeClock(START)
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(dt.timedelta(seconds=-1))
    with pytest.raises(ValueError, match="backwards"):
        clock.set(START - dt.timedelta(seconds=1))


async def test_system_clock_is_aware_utc() -> None:
    clock = SystemClock()
    now = clock.now()
    assert now.utcoffset() == dt.timedelta(0)
    await clock.sleep_until(now - dt.timedelta(seconds=1))
    await clock.sleep(0)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


WALL_CLOCK_CALLS = ("datetime.now", "datetime.utcnow", "datetime.today", "date.today", "time.time")


def _reads_the_wall_clock(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and any(
            _dotted(node.func) == call or _dotted(node.func).endswith("." + call)
            for call in WALL_CLOCK_CALLS
        )
    ]


def test_the_wall_clock_detector_sees_the_usual_spellings() -> None:
    source = "import datetime as dt\ndt.datetime.now(dt.UTC)\ndatetime.now()\ntime.time()\n"
    assert _reads_the_wall_clock(ast.parse(source)) == [2, 3, 4]
    assert _reads_the_wall_clock(ast.parse("self._clock.now()\nstate.now()")) == []


def test_only_the_system_clock_reads_the_wall_clock() -> None:
    offenders = []
    for package in ("bot", "rules", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "bot" / "runtime" / "clock.py":
                continue
            if path.parent == ROOT / "bot" / "sandbox":
                continue  # the fake Lichess keeps its own time, as the real one does
            tree = ast.parse(path.read_text(), str(path))
            offenders += [f"{path.relative_to(ROOT)}:{n}" for n in _reads_the_wall_clock(tree)]
    assert offenders == []
