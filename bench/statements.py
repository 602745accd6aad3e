"""Every SQL statement of a demo season, tallied by its shape and by the code that made it.

    python -m bench.statements --players 48 --out new.json
    python -m bench.statements --compare old.json new.json

The first form runs one season on a SQLite file (the sandbox streams exports at once) and writes
each statement's count, keyed by the statement's first words and the five innermost frames of
``bot/``, ``storage/`` and ``rules/`` that led to it (read from the greenlet that SQLAlchemy's
async session runs the statement in), with the season's games. The second prints what changed
per game between two such files, by the statement's shape and the service function that asked
(the storage frames left out, so that a renamed repository method does not hide the caller).
Run it on two commits (``git worktree add``) to see where a change of statements per game came
from (issue 31: 53.5 on 2026-12-02, 76.6 two days later). It slows the season several times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import greenlet
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from bot.config import Config
from bot.demo.report import Reporter
from bot.demo.roster import Roster
from bot.demo.season import DemoOptions, run_season
from bot.sandbox.state import SandboxState

OURS = ("/bot/", "/storage/", "/rules/")


class Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        event.listen(Engine, "before_cursor_execute", self._statement)

    def _statement(self, conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        shape = re.sub(r"\s+", " ", statement)[:40]
        parent = greenlet.getcurrent().parent
        frame = parent.gr_frame if parent is not None else None
        stack = traceback.extract_stack(frame) if frame is not None else traceback.extract_stack()
        ours = [f for f in stack if any(part in f.filename for part in OURS)][-5:]
        where = [f"{Path(f.filename).parent.name}/{Path(f.filename).stem}.{f.name}" for f in ours]
        self.counts[f"{shape} @ {' < '.join(reversed(where))}"] += 1


def _no_pace(sandbox: SandboxState, roster: Roster) -> None:
    sandbox.knobs.export_throttle = False


def run(players: int, out: Path) -> None:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="acwc-bench-statements-") as folder:
        options = DemoOptions(
            players=players,
            folder=Path(folder),
            serve_web=False,
            sandbox_setup=_no_pace,
            settle_timeout=1800.0,
        )
        result = asyncio.run(run_season(Config(), options, reporter=Reporter(write=None)))
    games = result.season_games
    out.write_text(json.dumps({"games": games, "counts": tally.counts.most_common()}, indent=0))
    print(f"{sum(tally.counts.values()) / max(games, 1):.1f} statements a game ({games} games)")


def _per_game(path: Path) -> Counter[str]:
    data = json.loads(path.read_text())
    found: Counter[str] = Counter()
    for key, count in data["counts"]:
        shape, _, chain = key.partition(" @ ")
        callers = [f for f in chain.split(" < ") if not f.startswith("storage/")]
        found[f"{shape[:28]} @ {callers[0] if callers else '?'}"] += count / data["games"]
    return found


def compare(old: Path, new: Path, rows: int = 40) -> None:
    before, after = _per_game(old), _per_game(new)
    print(f"{sum(before.values()):.1f} -> {sum(after.values()):.1f} statements a game")
    keys = sorted(set(before) | set(after), key=lambda k: after[k] - before[k])
    for key in [*keys[-rows:][::-1], *keys[: rows // 4]]:
        print(f"{before[key]:6.2f} {after[key]:6.2f} {after[key] - before[key]:+6.2f}  {key}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=48)
    parser.add_argument("--out", type=Path, default=Path("statements.json"))
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
    else:
        run(args.players, args.out)


if __name__ == "__main__":
    main()
