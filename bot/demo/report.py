"""What the demo shows: progress bars per stage, notable events, standings and figures."""

from __future__ import annotations

import datetime as dt
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rules.core.ruleset import StageKind
from rules.core.states import MatchState
from rules.stages.formats import stage_title
from storage.db import Database

__all__ = ["Progress", "Reporter", "endpoint_of", "percentile", "request_table"]

Write = Callable[[str], None]

_ENDPOINTS = (
    (re.compile(r"^/api/user/[^/]+$"), "/api/user/{username}"),
    (re.compile(r"^/api/games/user/[^/]+$"), "/api/games/user/{username}"),
    (re.compile(r"^/inbox/[^/]+$"), "/inbox/{username}"),
    (re.compile(r"^/team/[^/]+/pm-all$"), "/team/{teamId}/pm-all"),
    (re.compile(r"^/api/team/of/[^/]+$"), "/api/team/of/{username}"),
)


def endpoint_of(path: str) -> str:
    """A request path as the spec names its endpoint (usernames and ids replaced)."""
    for pattern, name in _ENDPOINTS:
        if pattern.match(path):
            return name
    return path


def request_table(requests: Iterable[tuple[str, str]]) -> Counter[str]:
    return Counter(f"{method} {endpoint_of(path)}" for method, path in requests)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _stamp(when: dt.datetime) -> str:
    return f"{when:%a %d %b %H:%M}"


@dataclass
class Reporter:
    """Prints events as they happen (``write``) and keeps them for the tests (``lines``)."""

    write: Write | None = print
    lines: list[str] = field(default_factory=list)
    anomalies: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        self.lines.append(text)
        if self.write is not None:
            self.write(text)

    def say_all(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.say(line)

    def event(self, when: dt.datetime, text: str) -> None:
        self.say(f"  {_stamp(when)}  {text}")

    def anomaly(self, when: dt.datetime, text: str) -> None:
        self.anomalies.append(f"{when.isoformat()} {text}")
        self.say(f"  {_stamp(when)}  ! {text}")


STAGE_LABELS = {kind.value: stage_title(kind) for kind in StageKind}


@dataclass
class Progress:
    """An actor that never acts: once a simulated day, a progress bar per stage in play."""

    db: Database
    reporter: Reporter
    width: int = 24
    name: str = "progress"
    _day: dt.date | None = None
    _shown: dict[str, tuple[int, int]] = field(default_factory=dict)

    async def step(self, now: dt.datetime) -> tuple[bool, dt.datetime | None]:
        if self._day == now.date():
            return False, None
        self._day = now.date()
        async with self.db.reads() as uow:
            rows = await uow.matches.count_by_stage_and_state()
        totals: Counter[str] = Counter()
        done: Counter[str] = Counter()
        for stage, state, count in rows:
            if state == MatchState.PROPOSED:
                continue
            totals[stage] += count
            if state in (MatchState.COMPLETE, MatchState.REPEAT):
                done[stage] += count
        for stage in STAGE_LABELS:
            if not totals[stage]:
                continue
            now_shown = (done[stage], totals[stage])
            if self._shown.get(stage) == now_shown:
                continue
            self._shown[stage] = now_shown
            filled = round(self.width * done[stage] / totals[stage])
            bar = "#" * filled + "." * (self.width - filled)
            self.reporter.say(
                f"  {_stamp(now)}  {STAGE_LABELS[stage]:<13} [{bar}] "
                f"{done[stage]}/{totals[stage]} matches"
            )
        return False, None


@dataclass(frozen=True)
class Contract:
    """What lila's contract (the sandbox plays it) made of the bot's calls in a run."""

    refused: Counter[str]
    """Calls refused, by ``"STATUS path"`` (goal: none)."""
    dm_limited: int
    """DMs answered 429: over lila's message budget."""
    notices_lost: int
    """Player and TD notices the outbox gave up on."""
    broadcast_rounds: int = 0
    broadcast_rounds_showing: int = 0
    """Broadcast rounds made, and those that showed every game of their players."""

    def lines(self) -> list[str]:
        out = [
            f"  calls lila's contract refused {sum(self.refused.values()):5d}  (goal 0)",
            *(f"    {n:7d}  {what}" for what, n in sorted(self.refused.items())),
            f"  DMs over lila's budget (429)  {self.dm_limited:5d}",
            f"  notices lost               {self.notices_lost:8d}",
        ]
        if self.broadcast_rounds:
            out.append(
                f"  broadcast rounds showing their games {self.broadcast_rounds_showing}"
                f"/{self.broadcast_rounds}"
            )
        return out


def figures_table(
    *,
    wall: float,
    requests: Counter[str],
    matches: int,
    games: int,
    delays: list[float],
    peak_mb: float,
    steps: int,
    counted: int = 0,
    from_challenges: int = 0,
    refused: Counter[str] | None = None,
    contract: Contract | None = None,
) -> list[str]:
    """The run's figures; ``counted`` games, how many of them came from the bot's challenges,
    the games ``refused`` by reason, and what lila's contract made of the bot's calls."""
    refused = refused or Counter()
    lines = [
        "Figures of the run",
        f"  wall time                  {wall:8.1f} s",
        f"  simulation steps           {steps:8d}",
        f"  matches played             {matches:8d}",
        f"  games on the sandbox       {games:8d}",
        f"  games counted              {counted:8d}  ({from_challenges} from the bot's challenges)",
        f"  games refused              {sum(refused.values()):8d}",
    ]
    for reason, count in sorted(refused.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"    {count:7d}  {reason.replace('_', ' ')}")
    p50, p99 = percentile(delays, 0.5), percentile(delays, 0.99)
    if p50 is not None and p99 is not None:
        lines.append(
            f"  game end -> row, p50/p99   {p50 * 1000:6.1f} / {p99 * 1000:.1f} ms "
            f"(mean {statistics.fmean(delays) * 1000:.1f} ms)"
        )
    if contract is not None:
        lines += contract.lines()
    lines.append(f"  peak memory (maxrss)       {peak_mb:8.1f} MB")
    lines.append(f"  Lichess requests           {sum(requests.values()):8d}")
    for name, count in sorted(requests.items(), key=lambda kv: (-kv[1], kv[0])):
        per = count / matches if matches else 0.0
        lines.append(f"    {count:7d}  {per:7.2f}/match  {name}")
    return lines
