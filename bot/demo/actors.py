"""The simulated TDs, players and games of a demo season.

Each actor reads the database (and, for games, the sandbox: the world the players live in), acts
through the service's own doors and says when it next wants to act:

* :class:`TDActor`: the weekly routine of the TDs on publication day: pair and approve the next
  qualification round, withdraw the player who leaves, advance to the next stage and publish
  its rounds (the services' ``qualification``, ``exits``, ``progression``, ``stage_rounds``).
* :class:`MatchActor`: per open match, the players' texts through the one door for a player's
  text (``services.texts``: offers, acceptances, choices, claims, armageddon bids and
  rock-paper-scissors) and the TDs' per-match decisions (``services.decisions``), all planned by
  :mod:`bot.demo.scripts` from the stored state and the seed.
* :class:`GameActor`: plays each agreed match on the sandbox, game by game, from the agreed time:
  both players join the open challenge the bot made for that game (its link is in their DMs and
  the match room), the game starts and is finished seven minutes later, so the service's real
  games stream and intake record it; the armageddon game too, through its own challenge. Now and
  then (seeded) two players first warm up with a lobby game, which the service refuses.

No actor keeps history between steps beyond caches of what the database or the sandbox say; a
decision is a function of (stored state, seed), so a restarted driver or service makes the same.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.config import Config
from bot.demo.roster import Roster, rng_for
from bot.demo.scripts import HOUR, MINUTE, Planned, match_script, plan_negotiation
from bot.errors import OperationError
from bot.lichess.games import game_from_export
from bot.sandbox.challenges import accept_challenge
from bot.sandbox.encode import game_json
from bot.sandbox.players import DRAW_CHANCE, WIN_ENDINGS
from bot.sandbox.schemas import GameJson, make_game
from bot.sandbox.state import SandboxState
from bot.service.services import Services
from bot.service.stages import hand_pairing
from bot.service.stages.candidates import SMALL_FIELD, SMALLER_POOLS
from bot.service.stages.small_field import SmallFieldChoice, choose
from bot.views.bracket import armageddon_view
from bot.views.qualification import entrants, qualification_stage, rounds
from rules.core.errors import RulesError
from rules.core.model import Colour, Game, GameId, GameStatus, PlayerId
from rules.core.ruleset import StageKind
from rules.core.states import MatchState, PlayerStatus
from rules.stages.qualification import number_of_rounds
from storage.changes import TableChanges
from storage.db import Database
from storage.match_log import WEEK_STARTED, replay
from storage.models import MatchRow
from storage.models_games import ChallengeRow
from storage.models_stages import ArmageddonRow
from storage.models_weekly import MatchEventRow
from storage.uow import UnitOfWork

__all__ = ["Actor", "GameActor", "MatchActor", "Notes", "TDActor", "World"]

log = logging.getLogger(__name__)

OPEN_STATES = (MatchState.SCHEDULED, MatchState.ARMAGEDDON)
MATCH_TABLES = ("matches", "match_events", "armageddons", "armageddon_steps")
"""What the match actor's plans are made of."""
GAME_TABLES = ("matches", "rounds", "armageddons", "armageddon_steps", "challenges")
"""What the game actor reads."""
TD_IGNORES = ("outbox", "settings", "audit_log", "web_sessions")
"""Tables the TDs' routine never decides by (messages, the stream's mark, the log, logins)."""
GAME_LENGTH = dt.timedelta(minutes=7)
GAME_PAUSE = dt.timedelta(0)  # the next game starts as the last ends: fewer events
ARMAGEDDON_LENGTH = dt.timedelta(minutes=5)
LOBBY_CHANCE = 0.05
"""How often two players play a quick lobby game before their match (the service refuses it)."""


class Notes(Protocol):
    """Where actors report what a spectator wants to see."""

    def event(self, when: dt.datetime, text: str) -> None: ...

    def anomaly(self, when: dt.datetime, text: str) -> None: ...


@dataclass
class World:
    """What every actor shares: the database, the config, the seed, the field and the sandbox."""

    db: Database
    config: Config
    services: Services
    seed: int
    roster: Roster
    sandbox: SandboxState
    notes: Notes
    poke: Callable[[bool], Awaitable[None]]
    """Tell the service that stored state changed (``True``: the pairings changed too)."""
    on_game: Callable[[Game], None]
    """Called after every change of a game on the sandbox (the driver waits for its row)."""
    changes: TableChanges | None = None
    """Committed writes per table, when the service runs in this process: an actor reads again
    only what changed since it last read (``None``: read every time)."""

    def version(self, tables: tuple[str, ...]) -> tuple[int, ...] | None:
        return None if self.changes is None else self.changes.version(tables)

    @property
    def td(self) -> str:
        return self.config.tournament.tds[0] if self.config.tournament.tds else "td"


class Actor(Protocol):
    name: str

    async def step(self, now: dt.datetime) -> tuple[bool, dt.datetime | None]:
        """Do what is due at ``now``; (whether anything was done, when to be called next)."""
        ...


def _next_publication(now: dt.datetime, config: Config) -> dt.datetime:
    """The next publication weekday 09:00 UTC strictly after ``now``."""
    day = now.date()
    while True:
        at = dt.datetime.combine(day, dt.time(9, 0), tzinfo=dt.UTC)
        if day.weekday() == config.rules.calendar.publish_weekday and at > now:
            return at
        day += dt.timedelta(days=1)


# --- the TDs' weekly routine -----------------------------------------------------------------


class TDActor:
    """Publication day: pairings, withdrawals, stage transitions and later-stage rounds."""

    name = "tds"

    def __init__(self, world: World) -> None:
        self.world = world
        self.placement: tuple[PlayerId, ...] = ()
        self.finished = False
        self._idle_at: tuple[Any, ...] | None = None

    async def step(self, now: dt.datetime) -> tuple[bool, dt.datetime | None]:
        if self.finished:
            return False, None
        first = dt.datetime.combine(
            self.world.config.rules.calendar.first_publication, dt.time(9, 0), tzinfo=dt.UTC
        )
        if now < first:
            return False, first
        if now.weekday() != self.world.config.rules.calendar.publish_weekday or now.hour < 9:
            return False, _next_publication(now, self.world.config)
        acted = await self._routine(now)
        return acted, None if self.finished else _next_publication(now, self.world.config)

    async def _routine(self, now: dt.datetime) -> bool:
        w = self.world
        # The routine's outcome depends on the stored state and the date only (publication
        # days, rules 4.1-4.2): after it did nothing, it does nothing again until one changes.
        key = None if w.changes is None else (now.date(), w.changes.version_except(TD_IGNORES))
        if key is not None and key == self._idle_at:
            return False
        acted = await self._routine_once(now)
        self._idle_at = None if acted else key
        return acted

    async def _routine_once(self, now: dt.datetime) -> bool:
        w = self.world
        async with w.db.reads() as uow:
            tournament = await uow.tournaments.current()
            assert tournament is not None
            current = StageKind(tournament.current_stage)
        if current is StageKind.QUALIFICATION:
            return await self._qualification(now)
        return await self._later(now, current)

    async def _qualification(self, now: dt.datetime) -> bool:
        w = self.world
        acted = False
        async with w.db.reads() as uow:
            stage = await qualification_stage(uow)
            stored = await rounds(uow, stage)
            field = await entrants(uow, stage)
        if stored and not stored[-1].is_finished:
            return False  # still playing (a claim or a late match): next week
        finished = len(stored)
        withdrawer = w.roster.withdrawer
        if withdrawer is not None and finished == w.roster.withdraw_after:
            async with w.db.uow() as uow:
                player = await uow.players.get(withdrawer)
                if player is not None and player.status is PlayerStatus.ACTIVE:
                    preview = await w.services.exits.exit_player(
                        uow,
                        player=withdrawer,
                        kind="withdrawal",
                        reason="withdrew by message to the TDs (demo)",
                        engine_mark=False,
                        now=now,
                        actor=w.td,
                    )
                    await uow.commit()
                    w.notes.event(now, f"{preview.username} withdraws (rules 8.i)")
                    acted = True
        total = number_of_rounds(len(field)) if field else None
        if total is None or finished < total:
            async with w.db.uow() as uow:
                await self._pair(uow, now)
                view = await w.services.qualification.approve_round(uow, now=now, actor=w.td)
                await uow.commit()
            await w.poke(True)
            byes = [b.white for b in view.boards if b.black is None]
            w.notes.event(
                now,
                f"qualification round {view.number}/{view.total_rounds} published: "
                f"{len(view.boards) - len(byes)} matches" + (f", bye {byes[0]}" if byes else ""),
            )
            return True
        return await self._advance(now) or acted

    async def _pair(self, uow: UnitOfWork, now: dt.datetime) -> None:
        """The engine's pairing; when it finds none, the TDs pair the round by hand (rules
        3.v.6) as the desk's editor starts it: the pairing with the fewest warnings."""
        w = self.world
        try:
            await w.services.qualification.propose_round(uow, now=now, actor=w.td)
            return
        except OperationError as e:
            note = str(e)
        start = await hand_pairing.editor(uow, w.config, now=now, actor=w.td)
        number, overridden = await hand_pairing.pair_by_hand(
            uow,
            w.config,
            boards=start.start,
            bye=start.bye,
            reason="the engine finds no pairing: the TDs pair by hand (demo)",
            now=now,
            actor=w.td,
        )
        w.notes.event(
            now,
            f"qualification round {number}: {note.split(' (')[0]}; the TDs pair it by hand "
            f"(rules 3.v.6), overriding: " + "; ".join(f.code for f in overridden),
        )

    async def _advance(self, now: dt.datetime) -> bool:
        w = self.world
        async with w.db.uow() as uow:
            try:
                report = await w.services.progression.advance(
                    uow,
                    now=now,
                    actor=w.td,
                    rng=rng_for(w.seed, "advance", now.isoformat()),
                )
            except OperationError:
                return False
            except RulesError as e:  # too few qualifiers (rules 1.3, 5.10): the TDs decide
                await uow.rollback()
                if await uow.settings.get(SMALL_FIELD) != SMALLER_POOLS:
                    await uow.settings.set(SMALL_FIELD, SMALLER_POOLS)
                    await uow.commit()
                    w.notes.event(now, f"the TDs choose smaller pools: {e}")
                    return True
                # even smaller pools cannot be made: the championship ends with the
                # qualification, its standings the final placement
                report = await choose(
                    uow,
                    w.services.progression,
                    SmallFieldChoice.END,
                    reason=f"too few players for the Candidates: {e}",
                    now=now,
                    actor=w.td,
                )
                w.notes.event(now, f"the TDs end the championship with the qualification: {e}")
            await uow.commit()
        await w.poke(True)
        w.notes.event(now, report.text().splitlines()[0])
        if report.entered is None:
            self.placement = report.placement
            self.finished = True
        return True

    async def _later(self, now: dt.datetime, current: StageKind) -> bool:
        acted = await self._advance(now)
        if self.finished:
            return True
        w = self.world
        if w.config.tournament.publish_fixed_rounds:
            return acted  # the stage advance approved its rounds: they go out by themselves
        async with w.db.reads() as uow:
            tournament = await uow.tournaments.current()
            assert tournament is not None
            current = StageKind(tournament.current_stage)
        kinds = (
            (StageKind.FINAL, StageKind.THIRD_PLACE)
            if current in (StageKind.FINAL, StageKind.THIRD_PLACE)
            else (current,)
        )
        for kind in kinds:
            async with w.db.uow() as uow:
                try:
                    rnd = await w.services.stage_rounds.approve_round(
                        uow, stage=kind, now=now, actor=w.td
                    )
                except OperationError:
                    continue
                await uow.commit()
            await w.poke(True)
            w.notes.event(now, f"{kind.value.replace('_', ' ')} round {rnd.number} published")
            acted = True
        return acted


# --- players' texts and the TDs' decisions, match by match -------------------------------------


@dataclass
class _MatchPlan:
    version: tuple[Any, ...]
    plans: list[Planned]


@dataclass
class MatchActor:
    """Every open match's scheduling, claims and armageddon texts, and the TDs' rulings."""

    world: World
    name: str = "matches"
    _cache: dict[int, _MatchPlan] = field(default_factory=dict)
    _refused: set[tuple[int, tuple[Any, ...], tuple[str, str, str, str | None]]] = field(
        default_factory=set
    )
    _weeks_shown: set[tuple[int, int]] = field(default_factory=set)
    _read: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    _read_at: tuple[int, ...] | None = None

    async def _versions(self) -> dict[int, tuple[Any, ...]]:
        key = self.world.version(MATCH_TABLES)
        if key is not None and key == self._read_at:
            return self._read
        self._read = await self._read_versions()
        self._read_at = key
        return self._read

    async def _read_versions(self) -> dict[int, tuple[Any, ...]]:
        """Each open match's (state, outcome, week, agreed time, last event, armageddon steps).

        Read as plain columns, the last event by the (match, seq) index: the actor asks after
        nearly every step, and a season keeps a hundred matches open at a time.
        """
        async with self.world.db.reads() as uow:
            rows = await uow.matches.open_versions(OPEN_STATES)
            steps: dict[int, int] = {}
            if any(r[1] is MatchState.ARMAGEDDON for r in rows):
                steps = await uow.later_stages.step_counts()
        return {
            mid: (state, outcome, week, agreed, seq, steps.get(mid))
            for mid, state, outcome, week, agreed, seq in rows
        }

    async def _plan(self, match_id: int, now: dt.datetime) -> list[Planned]:
        w = self.world
        async with w.db.reads() as uow:
            row = await uow.matches.get(match_id)
            assert row is not None
            assert row.black_first is not None
            events = list(await uow.weekly.events(row.id, week=row.week))
            if not any(e.kind == WEEK_STARTED for e in events):
                return []  # not started yet (the service starts a repeated week itself)
            if row.week > 1 and (row.id, row.week) not in self._weeks_shown:
                self._weeks_shown.add((row.id, row.week))
                w.notes.event(
                    now, f"{row.stage} {row.white_first} - {row.black_first}: week {row.week}"
                )
            n = replay(events, w.config.rules)
            plans: list[Planned] = []
            if row.state != MatchState.ARMAGEDDON and row.outcome is None:
                stage = StageKind(row.stage)
                allow = stage in (StageKind.QUALIFICATION, StageKind.CANDIDATES)
                if w.roster.absentee in (row.white_first, row.black_first):
                    allow = False
                script = match_script(
                    w.seed, row.id, row.week, n.week, n.players, allow_faults=allow
                )
                plans += plan_negotiation(n, script, td=w.td)
                plans += _claims(events, td=w.td)
            if row.state == MatchState.ARMAGEDDON:
                plans += await _armageddon_plans(uow, w, row)
        return plans

    async def step(self, now: dt.datetime) -> tuple[bool, dt.datetime | None]:
        versions = await self._versions()
        self._cache = {k: v for k, v in self._cache.items() if k in versions}
        due: list[tuple[dt.datetime, int, Planned, tuple[Any, ...]]] = []
        later: list[dt.datetime] = []
        for match_id, version in versions.items():
            cached = self._cache.get(match_id)
            if cached is None or cached.version != version:
                cached = _MatchPlan(version, await self._plan(match_id, now))
                self._cache[match_id] = cached
            for plan in cached.plans:
                if (match_id, version, plan.key) in self._refused:
                    continue
                if plan.at <= now:
                    due.append((plan.at, match_id, plan, version))
                else:
                    later.append(plan.at)
        if not due:
            return False, min(later, default=None)
        for _, match_id, plan, version in sorted(due, key=lambda d: (d[0], d[1], d[2].key)):
            ok = await self._carry_out(match_id, plan, now)
            if not ok:
                self._refused.add((match_id, version, plan.key))
        await self.world.poke(False)
        return True, None

    async def _carry_out(self, match_id: int, plan: Planned, now: dt.datetime) -> bool:
        w = self.world
        async with w.db.uow() as uow:
            try:
                if plan.kind == "text":
                    reply = await w.services.texts.handle(
                        uow,
                        match_id=match_id,
                        player=plan.actor,
                        text=plan.text,
                        now=now,
                        via="web",
                    )
                    if not reply.ok:
                        w.notes.anomaly(
                            now, f"match {match_id}: {plan.actor} `{plan.text}`: {reply.text}"
                        )
                        return False
                    if reply.changed:
                        await uow.commit()
                    _note_text(w, now, match_id, plan)
                elif plan.kind == "decide_fault":
                    await w.services.decisions.decide_fault(
                        uow,
                        match_id,
                        at_fault=plan.arg,
                        reason="no agreement by the deadline; the timeline shows who held it up",
                        now=now,
                        actor=plan.actor,
                    )
                    await uow.commit()
                    w.notes.event(now, f"match {match_id}: TDs rule {plan.arg} at fault (5.9)")
                elif plan.kind == "decide_claim":
                    await w.services.decisions.decide_claim(
                        uow,
                        match_id,
                        winner=plan.arg,
                        reason="the opponent did not appear (rules 6.3)",
                        now=now,
                        actor=plan.actor,
                    )
                    await uow.commit()
                    w.notes.event(
                        now, f"match {match_id}: TDs grant {plan.arg}'s claim: match won by forfeit"
                    )
            except OperationError as e:
                w.notes.anomaly(now, f"match {match_id}: {plan.kind} by {plan.actor} failed: {e}")
                return False
        return True


def _note_text(w: World, now: dt.datetime, match_id: int, plan: Planned) -> None:
    text = plan.text
    if text.startswith(("claim", "choose")):
        w.notes.event(now, f"match {match_id}: {plan.actor} sends `{text}`")
    elif text.startswith(("bid", "rps")):
        w.notes.event(now, f"match {match_id}: {plan.actor} sends a sealed `{text.split()[0]}`")


def _claims(events: list[MatchEventRow], *, td: str) -> list[Planned]:
    """The claimant claims 10 minutes after the right arises; the TDs rule an hour later."""
    rights: dict[str, dt.datetime] = {}
    claims: dict[str, dt.datetime] = {}
    for e in events:
        if e.kind == "claim_right":
            rights.setdefault(str(e.data["claimant"]), e.at)
        elif e.kind == "claim":
            claims.setdefault(e.actor, e.at)
        elif e.kind == "claim_decided":
            rights, claims = {}, {}
    plans = []
    for claimant, at in sorted(rights.items()):
        if claimant in claims:
            plans.append(Planned(claims[claimant] + HOUR, td, "decide_claim", arg=claimant))
        else:
            plans.append(Planned(at + 10 * MINUTE, claimant, "text", "claim win"))
    return plans


async def _armageddon_plans(uow: Any, w: World, row: MatchRow) -> list[Planned]:
    """Sealed bids, then rock-paper-scissors rounds, through the text door (rules 3.ix)."""
    view = await armageddon_view(uow, row.id, w.config.rules)
    if view is None:
        return []
    repo = uow.later_stages
    arm = await repo.armageddon_for_match(row.id)
    assert arm is not None
    steps = list(await repo.steps(arm.id))
    last = max(s.at for s in steps)
    players = [PlayerId(p) for p in view["players"]]
    plans = []
    equal = row.stage == StageKind.FINAL.value  # the demo shows rock-paper-scissors in the final
    if view["phase"] == "bidding":
        for index, (player, has_bid) in enumerate(zip(players, view["bids_in"], strict=True)):
            if has_bid:
                continue
            rng = rng_for(w.seed, "bid", row.id, player)
            seconds = 90 if equal else rng.choice((45, 60, 75, 90, 105, 120))
            plans.append(
                Planned(
                    arm.started_at + (2 + 3 * index) * HOUR,
                    player,
                    "text",
                    f"bid {seconds // 60}:{seconds % 60:02d}",
                )
            )
    elif view["phase"] == "rps":
        rps_round = int(view["rps_round"])
        for index, player in enumerate(players):
            chosen = sum(1 for s in steps if s.kind == "rps" and s.player == player)
            if chosen >= rps_round:
                continue
            hand = rng_for(w.seed, "rps", row.id, rps_round, player).choice(
                ("rock", "paper", "scissors")
            )
            plans.append(Planned(last + (1 + index) * HOUR, player, "text", f"rps {hand}"))
    return plans


# --- games on the sandbox ----------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _as_read(game: GameJson) -> Game:
    """A sandbox game as the service reads it: its export JSON through the client's decoder."""
    return game_from_export(game_json(game))


@dataclass
class GameActor:
    """Plays every agreed match on the sandbox at its agreed time, game after game."""

    world: World
    name: str = "games"
    _by_pair: dict[frozenset[PlayerId], list[GameId]] = field(default_factory=dict)
    _rounds: dict[int, int] = field(default_factory=dict)  # round id -> number (never changes)
    games_played: int = 0
    """Games started by joining the bot's challenge."""
    _stored: tuple[list[MatchRow], dict[int, ArmageddonRow], dict[int, dt.datetime]] = field(
        default_factory=lambda: ([], {}, {})
    )
    _challenges: dict[int, list[ChallengeRow]] = field(default_factory=dict)
    _read_at: tuple[int, ...] | None = None

    def _games_of(self, a: str, b: str, since: dt.datetime) -> list[Game]:
        ids = self._by_pair.get(frozenset((PlayerId(a), PlayerId(b))), [])
        games = [_as_read(self.world.sandbox.games[g]) for g in ids]
        return [g for g in games if g.created_at >= since]

    async def _read(
        self,
    ) -> tuple[list[MatchRow], dict[int, ArmageddonRow], dict[int, dt.datetime]]:
        key = self.world.version(GAME_TABLES)
        if key is None or key != self._read_at:
            self._stored = await self._read_stored()
            self._read_at = key
        return self._stored

    async def _read_stored(
        self,
    ) -> tuple[list[MatchRow], dict[int, ArmageddonRow], dict[int, dt.datetime]]:
        w = self.world
        async with w.db.reads() as uow:
            rows = list(await uow.matches.open_matches(OPEN_STATES))
            repo = uow.later_stages
            arms: dict[int, ArmageddonRow] = {}
            if any(r.state is MatchState.ARMAGEDDON for r in rows):
                arms = await repo.armageddons_for([r.id for r in rows])
            unknown = {r.round_id for r in rows} - set(self._rounds)
            if unknown:
                self._rounds.update(await uow.tournaments.round_numbers(unknown))
            self._challenges = await uow.lichess.challenges_of(
                r.id
                for r in rows
                if r.state is MatchState.ARMAGEDDON
                or (r.agreed_time is not None and r.state is MatchState.SCHEDULED)
            )
            last_steps: dict[int, dt.datetime] = {}
            for match_id, arm in arms.items():
                if arm.phase == "decided":
                    last = await repo.last_step_at(arm.id)
                    assert last is not None
                    last_steps[match_id] = last
        return rows, arms, last_steps

    async def step(self, now: dt.datetime) -> tuple[bool, dt.datetime | None]:
        w = self.world
        rows, arms, last_steps = await self._read()
        round_numbers = self._rounds
        acted = False
        wakes: list[dt.datetime] = []
        for row in rows:
            assert row.black_first is not None
            if row.state == MatchState.ARMAGEDDON:
                found = arms.get(row.id)
                if found is None or found.phase != "decided" or found.white is None:
                    continue
                start = last_steps[row.id] + 2 * HOUR
                games = self._games_of(row.white_first, row.black_first, found.started_at)
                did, wake = self._advance_armageddon(row, found, games, start, now)
            else:
                if row.agreed_time is None or row.outcome is not None:
                    continue
                if w.roster.absentee in (row.white_first, row.black_first) and (
                    row.stage == StageKind.QUALIFICATION.value
                    and round_numbers.get(row.round_id) == w.roster.no_show_round
                ):
                    continue  # the absentee misses this match (rules 6.3)
                games = self._games_of(row.white_first, row.black_first, row.agreed_time)
                did, wake = self._advance_match(row, games, now)
            acted = acted or did
            if wake is not None:
                wakes.append(wake)
        return acted, None if acted else min(wakes, default=None)

    def _join(
        self, row: MatchRow, number: int, now: dt.datetime, *, armageddon: bool = False
    ) -> bool:
        """Both players join the bot's challenge for game ``number`` (or the armageddon game);
        False while there is none (the service makes it as soon as the time is agreed, the game
        before is recorded or the armageddon's colours are decided)."""
        found = next(  # the newest that is still open (a time moved later makes a new one)
            (
                c
                for c in reversed(self._challenges.get(row.id, []))
                if c.expires_at > now
                and c.week == row.week
                and c.armageddon is armageddon
                and (armageddon or c.game_number == number)
                and c.id not in self.world.sandbox.games
            ),
            None,
        )
        if found is None:
            return False
        started = _as_read(accept_challenge(self.world.sandbox, found.id))
        key = frozenset((started.white, started.black))
        self._by_pair.setdefault(key, []).append(started.id)
        self.games_played += 1
        self.world.on_game(started)
        return True

    def _finish(
        self, game: Game, winner: Colour | None, status: GameStatus, at: dt.datetime
    ) -> None:
        side = None if winner is None else ("white" if winner is Colour.WHITE else "black")
        finished = self.world.sandbox.finish_game(game.id, status=status.value, winner=side, at=at)
        self.world.on_game(_as_read(finished))

    def _advance_match(
        self, row: MatchRow, games: list[Game], now: dt.datetime
    ) -> tuple[bool, dt.datetime | None]:
        assert row.black_first is not None
        assert row.agreed_time is not None
        if games and games[-1].status is GameStatus.STARTED:
            game = games[-1]
            end = game.created_at + GAME_LENGTH
            if end > now:
                return False, end
            winner, status = self._result(row, len(games))
            self._finish(game, winner, status, end)
            return True, None
        if sum(1 for g in games if g.status.is_finished) >= row.games:
            return False, None  # the service decides what a full match means
        start = row.agreed_time if not games else (games[-1].last_move_at or now) + GAME_PAUSE
        if start > now:
            return False, start
        if not games:
            self._maybe_lobby_game(row, now)
        if not self._join(row, len(games) + 1, now):
            # not made yet (Lichess failing, the service restarting): look again soon
            self.world.notes.anomaly(now, f"match {row.id}: no challenge for game {len(games) + 1}")
            return False, now + dt.timedelta(minutes=5)
        return True, None

    def _maybe_lobby_game(self, row: MatchRow, now: dt.datetime) -> None:
        """Now and then (seeded) the two players warm up with a quick game from the lobby just
        before game 1: not a challenge game, so the service refuses it and tells the TDs."""
        assert row.black_first is not None
        if rng_for(self.world.seed, "lobby", row.id, row.week).random() >= LOBBY_CHANCE:
            return
        sandbox = self.world.sandbox
        white, black = (sandbox.users[p].username for p in (row.white_first, row.black_first))
        rules = self.world.config.rules.time_control
        game = sandbox.add_game(
            make_game(
                white,
                black,
                id=f"lb{row.id:06d}",
                created_at=now,
                variant=rules.variant,
                clock=(rules.limit_seconds, rules.increment_seconds),
                source="lobby",
            )
        )
        self.world.on_game(_as_read(sandbox.start_game(game.id)))
        finished = sandbox.finish_game(game.id, status="resign", winner="white", at=now)
        self.world.on_game(_as_read(finished))
        self.world.notes.event(now, f"{white} and {black} warm up with a lobby game")

    def _result(self, row: MatchRow, number: int) -> tuple[Colour | None, GameStatus]:
        """Game ``number``'s result: by the Elo expectation of the two strengths; a final is
        played in pairs of games that cancel out, so it is repeated and goes to armageddon."""
        assert row.black_first is not None
        w = self.world
        white_is_first = number % 2 == 1
        rng = rng_for(w.seed, "game", row.id, row.week, number)
        ending = GameStatus(
            rng.choices([s for s, _ in WIN_ENDINGS], weights=[x for _, x in WIN_ENDINGS])[0]
        )
        if row.stage == StageKind.FINAL.value:
            pair = rng_for(w.seed, "final-pair", row.id, row.week, (number + 1) // 2)
            if pair.random() < 0.3:
                return None, GameStatus.DRAW
            first_wins_odd = pair.random() < 0.5
            first_wins = first_wins_odd if number % 2 == 1 else not first_wins_odd
        else:
            s1 = w.roster.strength(row.white_first)
            s2 = w.roster.strength(row.black_first)
            if rng.random() < DRAW_CHANCE:
                return None, GameStatus.DRAW if rng.random() < 0.5 else GameStatus.STALEMATE
            first_wins = rng.random() < 1 / (1 + 10 ** ((s2 - s1) / 400))
        white_wins = first_wins == white_is_first
        return (Colour.WHITE if white_wins else Colour.BLACK), ending

    def _advance_armageddon(
        self,
        row: MatchRow,
        arm: ArmageddonRow,
        games: list[Game],
        start: dt.datetime,
        now: dt.datetime,
    ) -> tuple[bool, dt.datetime | None]:
        assert row.black_first is not None
        assert arm.white is not None
        rules = self.world.config.rules
        mine = [g for g in games if g.clock_increment == rules.armageddon.increment_seconds]
        if mine and mine[-1].status is GameStatus.STARTED:
            end = mine[-1].created_at + ARMAGEDDON_LENGTH
            if end > now:
                return False, end
            rng = rng_for(self.world.seed, "armageddon", row.id)
            roll = rng.random()
            winner = Colour.WHITE if roll < 0.45 else (None if roll < 0.55 else Colour.BLACK)
            status = GameStatus.DRAW if winner is None else GameStatus.VARIANT_END
            self._finish(mine[-1], winner, status, end)
            self.world.notes.event(
                end,
                f"armageddon of match {row.id}: "
                + ("White wins" if winner is Colour.WHITE else "Black wins or draws (draw odds)"),
            )
            return True, None
        if mine:
            return False, None
        if start > now:
            return False, start
        if not self._join(row, 0, now, armageddon=True):
            self.world.notes.anomaly(now, f"match {row.id}: no challenge for the armageddon")
            return False, None
        return True, None
