"""Candidates, semifinals, finals and armageddon on top of storage (rules 3.vi-3.ix, 4.2, 8).

Everything a TD or a hook does to the later stages goes through here; the rules themselves are in
:mod:`rules.stages.candidates`, :mod:`rules.stages.knockout`, :mod:`rules.stages.armageddon` and
:mod:`rules.stages.order`.
Standings, brackets and placements are recomputed from the stored matches and games on every
read; what is stored is only what cannot be recomputed (pools, the knockout bracket, the inputs
of an armageddon procedure, a stage's first publication date).

Decisions:

* **Stage transitions** (``advance``) happen only when :func:`rules.stages.order.stage_progress`
  finds
  nothing missing. The next stage's rounds are created ``proposed``; a TD publishes them one at
  a time with :func:`approve_round`, never before the stage's earliest publication date
  (``stage_plans.earliest_publication``: the last round's week of the previous stage plus the
  break of rules 4.2) and never two rounds of a stage in the same week (rules 4.1).
* **Knockout slots** are (stage, board): SF1 is the semifinal on board 1, SF2 on board 2; the
  final and the third place playoff are board 1 of their stages. A tied final's repeat (rules
  3.viii.3-4) is a new match of the same round with ``week`` + 1; a match replaced after a
  withdrawal (rules 8.iii-iv) is kept with state ``void``.
* **Armageddon** (rules 3.ix): a knockout match in state ``armageddon`` gets one procedure,
  stored as its inputs and replayed through the pure state machine. The armageddon game arrives
  through game intake (``bot.intake`` hands any game of a match in state ``armageddon`` to
  :func:`armageddon_game`), is stored uncounted with ``refusal = "armageddon_game"`` (it is not
  one of the match's 10 or 12 games) and decides the match: ``decided_by = "armageddon"``.
* **Background work without the config**: match hooks and deadline handlers receive no config,
  so a stage stores, when it starts, the armageddon settings and the TDs to alert
  (``stage_plans.settings``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from bot import qualification as quals
from bot.app import Hooks
from bot.config import Config
from bot.intake import td_alert
from bot.runtime.deadlines import Firing
from bot.td import OperationError, match_state, require_tournament
from bot.weekly import Reply, publication_date, publish_round, start_match_week
from rules.core.model import Game, GameId, PlayerId, normalise_username
from rules.core.ruleset import (
    DEFAULT_RULESET,
    Armageddon,
    Ruleset,
    Seeding,
    StageKind,
    TimeControl,
)
from rules.core.scoring import Outcome, format_points, match_score
from rules.stages.armageddon import (
    ArmageddonError,
    ArmageddonErrorReason,
    ArmageddonEvent,
    ArmageddonProcedure,
    Phase,
    armageddon_result,
    format_clock,
)
from rules.stages.candidates import (
    MatchResult,
    Pool,
    PoolEntry,
    SeededRole,
    StandingRow,
    assign_pools,
    crosstable,
    pool_schedule,
    pool_standings,
    result_of,
)
from rules.stages.knockout import (
    Bracket,
    KnockoutError,
    KnockoutErrorReason,
    KnockoutPairing,
    SemifinalResult,
    Slot,
    next_week_pairing,
    pair_finals,
    rebuild_after_withdrawal,
    record_final,
    record_semifinal,
    start_bracket,
)
from rules.stages.order import (
    MatchStatus,
    StageProgress,
    candidates_round_count,
    stage_progress,
)
from rules.stages.qualification import (
    Adjudication,
    Exit,
    ExitKind,
    RoundKind,
    exit_report,
    qualifier_count,
    qualifiers,
)
from rules.swiss.tiebreaks import Standings
from rules.talk import commands
from storage.convert import fraction_to_text, game_row_values, to_game, to_match
from storage.models import (
    DeadlineRow,
    GameRow,
    MatchRow,
    PlayerExitRow,
    RoundRow,
    StageEntrantRow,
    StageRow,
)
from storage.models_stages import ArmageddonRow
from storage.repo_stages import StagesRepository
from storage.uow import UnitOfWork

__all__ = [
    "ARMAGEDDON_BIDS",
    "ARMAGEDDON_RPS",
    "AdvanceReport",
    "ExitPreview",
    "StagesContext",
    "Table",
    "advance",
    "approve_round",
    "armageddon_action",
    "armageddon_game",
    "armageddon_view",
    "candidates_view",
    "earliest_publication",
    "exit_player",
    "handle_armageddon",
    "knockout_view",
    "load_bracket",
    "progress",
    "record_armageddon_game",
    "register",
    "sync_knockout",
    "td_decide_armageddon",
]

ARMAGEDDON_BIDS = "armageddon_bids"
ARMAGEDDON_RPS = "armageddon_rps"
ARMAGEDDON_GAME = "armageddon_game"  # GameRow.refusal of the armageddon game: not a match game
KNOCKOUT = (StageKind.SEMIFINAL, StageKind.FINAL, StageKind.THIRD_PLACE)
KNOCKOUT_VALUES = tuple(k.value for k in KNOCKOUT)
SLOT_PLACE = {
    Slot.SF1: (StageKind.SEMIFINAL, 1),
    Slot.SF2: (StageKind.SEMIFINAL, 2),
    Slot.FINAL: (StageKind.FINAL, 1),
    Slot.THIRD_PLACE: (StageKind.THIRD_PLACE, 1),
}
VOID = "void"
DECIDED_ELSEWHERE = ("forfeit", "td", "bye", "armageddon")


# --------------------------------------------------------------------------------------------
# Settings the background work needs (hooks and deadline handlers get no config)


def _settings(config: Config) -> dict[str, Any]:
    rules = config.rules.armageddon
    return {
        "armageddon": {
            "black_seconds": rules.black_seconds,
            "increment_seconds": rules.increment_seconds,
            "min_white_seconds": rules.min_white_seconds,
            "black_draw_odds": rules.black_draw_odds,
            "bid_window_seconds": int(rules.bid_window.total_seconds()),
        },
        "variant": config.rules.time_control.variant,
        "tds": list(config.tournament.tds),
    }


def _ruleset_from(settings: dict[str, Any]) -> Ruleset:
    arm = settings.get("armageddon")
    if not arm:
        return DEFAULT_RULESET
    return replace(
        DEFAULT_RULESET,
        armageddon=Armageddon(
            black_seconds=int(arm["black_seconds"]),
            increment_seconds=int(arm["increment_seconds"]),
            min_white_seconds=int(arm["min_white_seconds"]),
            black_draw_odds=bool(arm["black_draw_odds"]),
            bid_window=dt.timedelta(seconds=int(arm["bid_window_seconds"])),
        ),
        time_control=replace(TimeControl(), variant=str(settings.get("variant", "antichess"))),
    )


async def _stage_row(uow: UnitOfWork, kind: StageKind) -> StageRow:
    tournament = await require_tournament(uow)
    stage = await uow.tournaments.stage(tournament.id, kind.value)
    if stage is None:  # pragma: no cover - create_tournament makes every stage
        raise OperationError(f"the tournament has no {kind.value} stage")
    return stage


async def _stage_settings(uow: UnitOfWork, kind: str) -> dict[str, Any]:
    stage = await _stage_row(uow, StageKind(kind))
    plan = await StagesRepository(uow.session).plan(stage.id)
    return {} if plan is None else dict(plan.settings)


async def _alert_tds(
    uow: UnitOfWork, tds: Iterable[str], *, now: dt.datetime, key: str, text: str
) -> None:
    """:func:`bot.intake.td_alert` for code that has the TD names but no config."""
    for td in tds:
        await uow.outbox.enqueue(
            now=now, kind="td_alert", recipient=td, body=text, dedupe_key=f"{key}:{td.lower()}"
        )


async def _dm(
    uow: UnitOfWork, player: str, text: str, *, now: dt.datetime, key: str | None = None
) -> None:
    row = await uow.players.get(player)
    name = row.username if row is not None else player
    await uow.outbox.enqueue(
        now=now,
        kind="dm",
        recipient=name,
        body=text,
        dedupe_key=None if key is None else f"{key}:{player}",
    )


async def _cancel_deadlines(
    uow: UnitOfWork, match_id: int, *, now: dt.datetime, kinds: Sequence[str] | None = None
) -> None:
    for row in await uow.deadlines.open_for_match(match_id):
        if kinds is None or row.kind in kinds:
            row.cancelled_at = now
    await uow.session.flush()


# --------------------------------------------------------------------------------------------
# Reading a stage


async def _rounds(uow: UnitOfWork, stage: StageRow) -> list[tuple[RoundRow, list[MatchRow]]]:
    out = []
    for rnd in await uow.tournaments.rounds(stage.id):
        rows = [m for m in await uow.matches.for_round(rnd.id) if m.state != VOID]
        out.append((rnd, rows))
    return out


async def _outcome(uow: UnitOfWork, row: MatchRow) -> Outcome | None:
    """Where a match stands: a stored decision (forfeit, TD, armageddon) or its games."""
    if row.decided_by in DECIDED_ELSEWHERE and row.outcome is not None:
        return Outcome(row.outcome)
    return (await match_state(uow, row.id)).outcome


async def _stage_round_count(uow: UnitOfWork, config: Config, kind: StageKind) -> int:
    if kind is StageKind.QUALIFICATION:
        stage = await _stage_row(uow, kind)
        field = await quals.entrants(uow, stage)
        if len(field) < 2:
            return 1
        from rules.stages.qualification import number_of_rounds

        return number_of_rounds(len(field))
    if kind is StageKind.CANDIDATES:
        return candidates_round_count(config.rules)
    return 1


async def progress(uow: UnitOfWork, config: Config, kind: StageKind) -> StageProgress:
    """What ``kind`` still lacks before the next stage (rules/stages.stage_progress).

    ``StageKind.FINAL`` covers the third place playoff too.
    """
    kinds = (StageKind.FINAL, StageKind.THIRD_PLACE) if kind is StageKind.FINAL else (kind,)
    statuses: list[MatchStatus] = []
    for k in kinds:
        stage = await _stage_row(uow, k)
        rounds_rows = await _rounds(uow, stage)
        await uow.games.preload(r.id for _, rows in rounds_rows for r in rows)
        for rnd, rows in rounds_rows:
            for row in rows:
                if row.black_first is None:
                    continue  # a bye is complete by itself
                outcome = await _outcome(uow, row)
                assert outcome is not None
                statuses.append(MatchStatus(to_match(row, round=rnd.number), outcome))
    rounds = await _stage_round_count(uow, config, kind)
    if kind is StageKind.QUALIFICATION:
        stage = await _stage_row(uow, kind)
        # Rounds made of byes only cannot happen, but a round with no match rows at all is
        # "not paired" for the rules; count rounds that exist with only byes as paired.
        for rnd, rows in await _rounds(uow, stage):
            if rows and all(r.black_first is None for r in rows):  # pragma: no cover
                rounds = max(rounds, rnd.number)
    return stage_progress(kind, statuses, rounds=rounds)


# --------------------------------------------------------------------------------------------
# The knockout bracket, stored as JSON


def _pairing_data(p: KnockoutPairing) -> dict[str, str]:
    return {
        "slot": p.slot.value,
        "white_first": p.white_first,
        "black_first": p.black_first,
        "white_source": p.white_source,
        "black_source": p.black_source,
    }


def _pairing_from(d: dict[str, str]) -> KnockoutPairing:
    return KnockoutPairing(
        Slot(d["slot"]),
        PlayerId(d["white_first"]),
        PlayerId(d["black_first"]),
        d["white_source"],
        d["black_source"],
    )


def bracket_data(b: Bracket) -> dict[str, Any]:
    return {
        "upper": list(b.upper),
        "lower": list(b.lower),
        "semifinals": [_pairing_data(p) for p in b.semifinals],
        "results": [
            None if r is None else {"winner": r.winner, "loser": r.loser} for r in b.results
        ],
        "final_white_from": b.final_white_from,
        "third_white_from": b.third_white_from,
        "final_winner": b.final_winner,
        "third_place_winner": b.third_place_winner,
        "withdrawn": list(b.withdrawn),
    }


def bracket_from(d: dict[str, Any]) -> Bracket:
    def result(r: dict[str, str] | None) -> SemifinalResult | None:
        return None if r is None else SemifinalResult(PlayerId(r["winner"]), PlayerId(r["loser"]))

    sf = [_pairing_from(p) for p in d["semifinals"]]
    res = [result(r) for r in d["results"]]
    return Bracket(
        upper=tuple(PlayerId(p) for p in d["upper"]),
        lower=tuple(PlayerId(p) for p in d["lower"]),
        semifinals=(sf[0], sf[1]),
        results=(res[0], res[1]),
        final_white_from=d["final_white_from"],
        third_white_from=d["third_white_from"],
        final_winner=None if d["final_winner"] is None else PlayerId(d["final_winner"]),
        third_place_winner=(
            None if d["third_place_winner"] is None else PlayerId(d["third_place_winner"])
        ),
        withdrawn=tuple(PlayerId(p) for p in d["withdrawn"]),
    )


async def load_bracket(uow: UnitOfWork) -> Bracket | None:
    tournament = await require_tournament(uow)
    row = await StagesRepository(uow.session).bracket(tournament.id)
    return None if row is None else bracket_from(row.data)


async def _save_bracket(uow: UnitOfWork, bracket: Bracket, *, now: dt.datetime) -> None:
    tournament = await require_tournament(uow)
    await StagesRepository(uow.session).save_bracket(tournament.id, bracket_data(bracket), now=now)


async def _slot_rows(uow: UnitOfWork, slot: Slot) -> list[MatchRow]:
    """The slot's matches that are not void, week 1 first."""
    stage, board = SLOT_PLACE[slot]
    rows = await StagesRepository(uow.session).matches_of_stages([stage.value])
    return sorted(
        (r for r in rows if r.board == board and r.state != VOID), key=lambda r: (r.week, r.id)
    )


async def _slot_winner(uow: UnitOfWork, slot: Slot) -> PlayerId | None:
    rows = await _slot_rows(uow, slot)
    if not rows:
        return None
    last = rows[-1]
    outcome = await _outcome(uow, last)
    if outcome is Outcome.FIRST_WINS:
        return PlayerId(last.white_first)
    if outcome is Outcome.SECOND_WINS and last.black_first is not None:
        return PlayerId(last.black_first)
    return None


# --------------------------------------------------------------------------------------------
# Candidates pools, read back from storage


async def pool_entries(uow: UnitOfWork) -> dict[Pool, list[PoolEntry]]:
    """The two pools as stored at the start of the Candidates (pool order = Berger numbers)."""
    cand = await _stage_row(uow, StageKind.CANDIDATES)
    qual = await _stage_row(uow, StageKind.QUALIFICATION)
    qual_place = {
        r.player_id: r.placement
        for r in await uow.stages.entrants(qual.id)
        if r.placement is not None
    }
    rows = await uow.stages.entrants(cand.id)
    ranked = sorted(
        (r.player_id for r in rows if r.player_id in qual_place),
        key=lambda p: (qual_place[p], p),
    )
    place = {p: i + 1 for i, p in enumerate(ranked)}
    out: dict[Pool, list[PoolEntry]] = {Pool.UPPER: [], Pool.LOWER: []}
    for r in sorted(rows, key=lambda r: (r.pool or "", r.number)):
        player = await uow.players.get(r.player_id)
        seeded = (
            SeededRole(player.seeded_as)
            if player is not None and player.seeded_as and r.player_id not in place
            else None
        )
        pool = Pool(r.pool or "upper")
        out[pool].append(PoolEntry(PlayerId(r.player_id), pool, place.get(r.player_id), seeded))
    return out


async def _match_result(uow: UnitOfWork, row: MatchRow, number: int) -> MatchResult | None:
    if row.black_first is None:
        return None
    match = to_match(row, round=number)
    games = [to_game(g) for g in await uow.games.for_match(row.id)]
    if row.decided_by in DECIDED_ELSEWHERE and row.outcome is not None:
        score = match_score(match, games)
        return MatchResult(
            match.id,
            match.white_first,
            match.black_first,
            score.first,
            score.second,
            score.games_played,
            Outcome(row.outcome),
        )
    return result_of(match, games)


async def candidates_results(uow: UnitOfWork) -> list[MatchResult]:
    stage = await _stage_row(uow, StageKind.CANDIDATES)
    out = []
    for rnd, rows in await _rounds(uow, stage):
        for row in rows:
            result = await _match_result(uow, row, rnd.number)
            if result is not None:
                out.append(result)
    return out


async def _exited(uow: UnitOfWork, stage: StageKind) -> list[PlayerId]:
    return [PlayerId(r.player_id) for r in await uow.stages.exits(stage.value)]


async def pool_tables(
    uow: UnitOfWork, config: Config
) -> dict[Pool, tuple[tuple[PoolEntry, ...], tuple[StandingRow, ...], list[MatchResult]]]:
    entries = await pool_entries(uow)
    results = await candidates_results(uow)
    gone = await _exited(uow, StageKind.CANDIDATES)
    out = {}
    for pool, members in entries.items():
        ids = {e.player for e in members}
        mine = [r for r in results if r.first in ids and r.second in ids]
        rows = pool_standings(
            members,
            mine,
            previous_final_order=config.rules.seeding.previous_final_order,
            withdrawn=gone,
        )
        out[pool] = (tuple(members), rows, mine)
    return out


# --------------------------------------------------------------------------------------------
# Stage transitions (rules 3.ii, 3.v.4, 3.vi, 3.vii, 3.viii, 4.2)


@dataclass(frozen=True, slots=True)
class AdvanceReport:
    """What ``advance`` did: the stage left, the stage entered, and what was created."""

    left: StageKind
    entered: StageKind | None
    earliest_publication: dt.date | None
    lines: tuple[str, ...]
    placement: tuple[PlayerId, ...] = ()

    def text(self) -> str:
        head = f"{self.left.value} complete"
        if self.entered is not None:
            head += f"; {self.entered.value} started"
        if self.earliest_publication is not None:
            head += f", first publication not before {self.earliest_publication:%a %Y-%m-%d}"
        return "\n".join((head, *self.lines))


def _format_row(row: MatchRow) -> dict[str, Any]:
    return {"games": row.games, "clinch_at": row.clinch_at, "max_weeks": row.max_weeks}


def _new_match(
    round_row: RoundRow, stage: StageKind, board: int, white: str, black: str, config: Config
) -> MatchRow:
    fmt = config.rules.formats.for_stage(stage)
    return MatchRow(
        round_id=round_row.id,
        stage=stage.value,
        board=board,
        white_first=white,
        black_first=black,
        games=fmt.games,
        clinch_at=fraction_to_text(fmt.clinch_at),
        tiebreak=fmt.tiebreak.value,
        max_weeks=fmt.max_weeks,
        week=1,
        state="scheduled" if round_row.state == "published" else "proposed",
    )


async def _last_publication(uow: UnitOfWork, kinds: Sequence[StageKind]) -> dt.date | None:
    latest: dt.date | None = None
    for kind in kinds:
        stage = await _stage_row(uow, kind)
        for rnd in await uow.tournaments.rounds(stage.id):
            if rnd.week_start is not None:
                day = rnd.week_start.date()
                latest = day if latest is None or day > latest else latest
    return latest


async def earliest_publication(uow: UnitOfWork, stage_id: int, number: int) -> dt.date | None:
    """The first date round ``number`` of a started later stage may be published (rules 4.1-4.2).

    ``None`` when the stage has no plan (the qualification). Other doors that publish a later
    stage's round should honour it as :func:`approve_round` does.
    """
    plan = await StagesRepository(uow.session).plan(stage_id)
    if plan is None:
        return None
    return plan.earliest_publication + dt.timedelta(weeks=number - 1)


async def _start_stage(
    uow: UnitOfWork,
    config: Config,
    kind: StageKind,
    *,
    after: Sequence[StageKind],
    break_weeks: int,
    now: dt.datetime,
    actor: str,
) -> tuple[StageRow, dt.date]:
    stage = await _stage_row(uow, kind)
    last = await _last_publication(uow, after)
    if last is None:
        earliest = publication_date(now, config)
    else:
        earliest = last + dt.timedelta(weeks=1 + break_weeks)
    await StagesRepository(uow.session).set_plan(
        stage.id, earliest_publication=earliest, settings=_settings(config), now=now, actor=actor
    )
    stage.state, stage.started_at = "active", now
    return stage, earliest


async def _complete_stage(uow: UnitOfWork, kind: StageKind, *, now: dt.datetime) -> None:
    stage = await _stage_row(uow, kind)
    stage.state, stage.completed_at = "complete", now


def _missing_error(kind: StageKind, prog: StageProgress) -> OperationError:
    items = "\n".join(f"  - {m.text}" for m in prog.missing)
    return OperationError(f"the {kind.value} stage is not complete yet:\n{items}")


async def advance(
    uow: UnitOfWork,
    config: Config,
    *,
    now: dt.datetime,
    actor: str,
    rng: random.Random | None = None,
) -> AdvanceReport:
    """Move from the current stage to the next, only when the current one is complete.

    Raises :class:`OperationError` listing what is missing (rules/stages.stage_progress).
    ``rng`` draws the colours of the final matches (rules/knockout.pair_finals); by default a
    system random source, and the draw is in the audit log.
    """
    tournament = await require_tournament(uow)
    current = StageKind(tournament.current_stage)
    if current is StageKind.THIRD_PLACE:
        current = StageKind.FINAL
    stage = await _stage_row(uow, current)
    if current is StageKind.FINAL and stage.state == "complete":
        raise OperationError("the championship is over: there is no stage after the final")
    await sync_knockout(uow, now=now, config=config)
    prog = await progress(uow, config, current)
    if not prog.complete:
        raise _missing_error(current, prog)
    if current is StageKind.QUALIFICATION:
        report = await _to_candidates(uow, config, now=now, actor=actor)
    elif current is StageKind.CANDIDATES:
        report = await _to_semifinals(uow, config, now=now, actor=actor)
    elif current is StageKind.SEMIFINAL:
        report = await _to_finals(uow, config, now=now, actor=actor, rng=rng)
    else:
        report = await _finish(uow, now=now)
    if report.entered is not None:
        tournament.current_stage = report.entered.value
    await uow.audit.record(
        at=now,
        actor=actor,
        action="stage.advance",
        details={
            "left": report.left.value,
            "entered": None if report.entered is None else report.entered.value,
            "earliest_publication": None
            if report.earliest_publication is None
            else report.earliest_publication.isoformat(),
            "lines": list(report.lines),
            "placement": list(report.placement),
        },
    )
    await uow.session.flush()
    return report


async def _seeded_present(uow: UnitOfWork, config: Config) -> Seeding:
    """The seeding of rules 3.iii-iv with absent seeded entrants as ``None``."""
    seeding = config.rules.seeding
    present = {p.id for p in await uow.players.list(status="active") if p.seeded_as}
    holder = seeding.title_holder
    runner = seeding.runner_up
    return replace(
        seeding,
        title_holder=holder if holder and normalise_username(holder) in present else None,
        runner_up=runner if runner and normalise_username(runner) in present else None,
    )


async def _to_candidates(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> AdvanceReport:
    ruleset = config.rules
    table: Standings = await quals.standings(uow, ruleset)
    qual = await _stage_row(uow, StageKind.QUALIFICATION)
    for entrant in await uow.stages.entrants(qual.id):
        entrant.placement = table.row(PlayerId(entrant.player_id)).rank
    present = await _seeded_present(uow, config)
    names = [n for n in (present.title_holder, present.runner_up) if n]
    count = qualifier_count(
        stages=ruleset.stages, seeding=ruleset.seeding, seeded_participants=names
    )
    chosen = qualifiers(table, count=count)
    pools = assign_pools(chosen, ruleset=ruleset, seeding=present)
    await _complete_stage(uow, StageKind.QUALIFICATION, now=now)
    stage, earliest = await _start_stage(
        uow,
        config,
        StageKind.CANDIDATES,
        after=(StageKind.QUALIFICATION,),
        break_weeks=ruleset.calendar.break_weeks_after_qualification,
        now=now,
        actor=actor,
    )
    ratings = {p.id: p.seed_rating for p in await uow.players.list()}
    lines = []
    schedules = {}
    for pool in (Pool.UPPER, Pool.LOWER):
        entries = pools.entries(pool)
        for number, entry in enumerate(entries, start=1):
            await uow.stages.add_entrant(
                StageEntrantRow(
                    stage_id=stage.id,
                    player_id=entry.player,
                    number=number,
                    seed_rating=ratings.get(entry.player),
                    pool=pool.value,
                )
            )
        schedules[pool] = pool_schedule(pools.players(pool), ruleset=ruleset)
        lines.append(f"{pool.value} pool: {', '.join(pools.players(pool))}")
    rounds = len(schedules[Pool.UPPER])
    for number in range(1, rounds + 1):
        rnd = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=number, state="proposed")
        )
        board = 0
        for pool in (Pool.UPPER, Pool.LOWER):
            for pairing in schedules[pool][number - 1].pairings:
                board += 1
                await uow.matches.add(
                    _new_match(
                        rnd,
                        StageKind.CANDIDATES,
                        board,
                        pairing.white_first,
                        pairing.black_first,
                        config,
                    )
                )
    lines.append(f"{rounds} Candidates rounds proposed (Berger tables)")
    return AdvanceReport(StageKind.QUALIFICATION, StageKind.CANDIDATES, earliest, tuple(lines))


async def _to_semifinals(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> AdvanceReport:
    tables = await pool_tables(uow, config)
    cand = await _stage_row(uow, StageKind.CANDIDATES)
    placed = {}
    for _, rows, _ in tables.values():
        for row in rows:
            placed[row.player] = row.rank
    for entrant in await uow.stages.entrants(cand.id):
        entrant.placement = placed.get(PlayerId(entrant.player_id))
    upper = [r.player for r in tables[Pool.UPPER][1]]
    lower = [r.player for r in tables[Pool.LOWER][1]]
    bracket = start_bracket(upper, lower)
    await _save_bracket(uow, bracket, now=now)
    await _complete_stage(uow, StageKind.CANDIDATES, now=now)
    stage, earliest = await _start_stage(
        uow,
        config,
        StageKind.SEMIFINAL,
        after=(StageKind.CANDIDATES,),
        break_weeks=config.rules.calendar.break_weeks_after_candidates,
        now=now,
        actor=actor,
    )
    rnd = await uow.tournaments.add_round(RoundRow(stage_id=stage.id, number=1, state="proposed"))
    lines = []
    for board, pairing in enumerate(bracket.semifinals, start=1):
        await uow.matches.add(
            _new_match(
                rnd, StageKind.SEMIFINAL, board, pairing.white_first, pairing.black_first, config
            )
        )
        lines.append(
            f"{pairing.slot.value.upper()}: {pairing.white_first} ({pairing.white_source}) v"
            f" {pairing.black_first} ({pairing.black_source})"
        )
    return AdvanceReport(StageKind.CANDIDATES, StageKind.SEMIFINAL, earliest, tuple(lines))


async def _record_results(uow: UnitOfWork, bracket: Bracket) -> Bracket:
    for slot in (Slot.SF1, Slot.SF2):
        if bracket.winner_of(slot) is None:
            winner = await _slot_winner(uow, slot)
            if winner is not None:
                bracket = record_semifinal(bracket, slot, winner)
    if bracket.final is not None:
        for slot in (Slot.FINAL, Slot.THIRD_PLACE):
            if bracket.winner_of(slot) is None:
                winner = await _slot_winner(uow, slot)
                if winner is not None:
                    bracket = record_final(bracket, slot, winner)
    return bracket


async def _to_finals(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str, rng: random.Random | None
) -> AdvanceReport:
    bracket = await load_bracket(uow)
    if bracket is None:  # pragma: no cover - the semifinals start with a bracket
        raise OperationError("there is no knockout bracket")
    bracket = await _record_results(uow, bracket)
    bracket = pair_finals(bracket, rng=rng or random.SystemRandom())
    await _save_bracket(uow, bracket, now=now)
    await _complete_stage(uow, StageKind.SEMIFINAL, now=now)
    lines = []
    earliest: dt.date | None = None
    for kind, pairing in (
        (StageKind.FINAL, bracket.final),
        (StageKind.THIRD_PLACE, bracket.third_place),
    ):
        assert pairing is not None
        stage, earliest = await _start_stage(
            uow, config, kind, after=(StageKind.SEMIFINAL,), break_weeks=0, now=now, actor=actor
        )
        rnd = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=1, state="proposed")
        )
        await uow.matches.add(
            _new_match(rnd, kind, 1, pairing.white_first, pairing.black_first, config)
        )
        lines.append(
            f"{kind.value}: {pairing.white_first} ({pairing.white_source}) v"
            f" {pairing.black_first} ({pairing.black_source}); White in game 1 drawn by lot"
        )
    return AdvanceReport(StageKind.SEMIFINAL, StageKind.FINAL, earliest, tuple(lines))


async def _finish(uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
    bracket = await load_bracket(uow)
    if bracket is None:  # pragma: no cover
        raise OperationError("there is no knockout bracket")
    bracket = await _record_results(uow, bracket)
    await _save_bracket(uow, bracket, now=now)
    placement = bracket.placement()
    if any(p is None for p in placement):  # pragma: no cover - progress said complete
        raise OperationError("the final matches have no winner yet")
    for kind in (StageKind.FINAL, StageKind.THIRD_PLACE):
        await _complete_stage(uow, kind, now=now)
    places = tuple(PlayerId(p) for p in placement if p is not None)
    lines = tuple(f"{i}. {p}" for i, p in enumerate(places, start=1))
    return AdvanceReport(StageKind.FINAL, None, None, lines, places)


# --------------------------------------------------------------------------------------------
# Publishing the rounds of a later stage


async def approve_round(
    uow: UnitOfWork,
    config: Config,
    *,
    stage: StageKind,
    number: int | None = None,
    now: dt.datetime,
    actor: str,
) -> RoundRow:
    """Approve and publish a proposed round of a later stage (through ``publish_round``).

    ``number`` defaults to the stage's first proposed round. Refuses a round whose earlier round
    is not published, a stage that has not started, and a publication before the round's
    earliest date (rules 4.1-4.2: one round a week, the break between stages).
    """
    if stage is StageKind.QUALIFICATION:
        raise OperationError("qualification rounds are approved with `acwc round approve`")
    row = await _stage_row(uow, stage)
    if row.state != "active":
        raise OperationError(f"the {stage.value} stage has not started (it is {row.state})")
    rounds = list(await uow.tournaments.rounds(row.id))
    if number is None:
        proposed = [r for r in rounds if r.state == "proposed"]
        if not proposed:
            raise OperationError(f"the {stage.value} stage has no proposed round")
        target = proposed[0]
    else:
        found = [r for r in rounds if r.number == number]
        if not found:
            raise OperationError(f"the {stage.value} stage has no round {number}")
        target = found[0]
    if target.state != "proposed":
        raise OperationError(f"{stage.value} round {target.number} is {target.state}, not proposed")
    earlier = [r for r in rounds if r.number < target.number and r.state == "proposed"]
    if earlier:
        raise OperationError(
            f"publish {stage.value} round {earlier[0].number} before round {target.number}"
        )
    floor = await earliest_publication(uow, row.id, target.number)
    day = publication_date(now, config)
    previous = [r for r in rounds if r.number < target.number and r.week_start is not None]
    if previous:
        after_previous = max(r.week_start for r in previous if r.week_start).date()
        after_previous += dt.timedelta(weeks=1)
        floor = after_previous if floor is None else max(floor, after_previous)
    if floor is not None and day < floor:
        raise OperationError(
            f"{stage.value} round {target.number} cannot be published before"
            f" {floor:%a %Y-%m-%d} (rules 4.1-4.2: one match a week, a week's break between"
            f" stages); the next publication day now would be {day:%a %Y-%m-%d}"
        )
    target.state, target.approved_by, target.approved_at = "approved", actor, now
    await publish_round(uow, config, target, now=now, actor=actor)
    for match in await uow.matches.for_round(target.id):
        if match.black_first is not None and match.state == "proposed":
            match.state = "scheduled"  # pragma: no cover - publish_round schedules them
    return target


# --------------------------------------------------------------------------------------------
# Knockout matches that need more: a repeat week (rules 3.viii.3-4) or armageddon (3.ix)


async def ensure_next_week(
    uow: UnitOfWork, row: MatchRow, *, now: dt.datetime, config: Config
) -> MatchRow | None:
    """Create next week's match of a tied final (rules 3.viii.3-4), once; colours of game 1 swap.

    When its round is published, the new week's negotiation starts in the same transaction
    (``bot.weekly.start_match_week``: the pairing DMs and the week's deadlines)."""
    if row.stage not in KNOCKOUT_VALUES or row.black_first is None:
        return None
    later = [
        r
        for r in await StagesRepository(uow.session).matches_of_stages([row.stage])
        if r.board == row.board and r.week > row.week and r.state != VOID
    ]
    if later:
        return None
    pairing = next_week_pairing(to_match(row))
    rnd = await uow.tournaments.round(row.round_id)
    assert rnd is not None
    new = await uow.matches.add(
        MatchRow(
            round_id=row.round_id,
            stage=row.stage,
            board=row.board,
            white_first=pairing.white_first,
            black_first=pairing.black_first,
            games=row.games,
            clinch_at=row.clinch_at,
            tiebreak=row.tiebreak,
            max_weeks=row.max_weeks,
            week=pairing.week,
            state="scheduled" if rnd.state == "published" else "proposed",
        )
    )
    text = (
        f"Your {row.stage.replace('_', ' ')} match is tied after week {row.week}: it is played"
        f" again next week (rules 3.viii.3-4), match {new.id}, {new.white_first} with White in"
        " game 1."
    )
    for player in (pairing.white_first, pairing.black_first):
        await _dm(uow, player, text, now=now, key=f"repeat:{new.id}")
    await uow.audit.record(
        at=now,
        actor="bot",
        action="knockout.repeat",
        match_id=new.id,
        details={"previous": row.id, "week": new.week},
    )
    if new.state == "scheduled":
        await start_match_week(uow, config, new, now=now, actor="bot")
    return new


async def _procedure(
    uow: UnitOfWork, arm: ArmageddonRow
) -> tuple[ArmageddonProcedure, MatchRow, Ruleset]:
    """Rebuild the procedure by replaying its stored inputs."""
    match = await uow.matches.get(arm.match_id)
    assert match is not None
    assert match.black_first is not None
    ruleset = _ruleset_from(await _stage_settings(uow, match.stage))
    proc: ArmageddonProcedure | None = None
    for step in await StagesRepository(uow.session).steps(arm.id):
        if step.kind == "start":
            players = (PlayerId(match.white_first), PlayerId(match.black_first))
            proc, _ = ArmageddonProcedure.start(players, now=step.at, ruleset=ruleset)
            continue
        assert proc is not None
        who = PlayerId(step.player or "")
        if step.kind == "bid":
            proc, _ = proc.submit_bid(who, step.value or "", salt=step.salt or "", now=step.at)
        elif step.kind == "rps":
            proc, _ = proc.submit_rps(who, step.value or "", salt=step.salt or "", now=step.at)
        elif step.kind == "reveal":
            proc, _ = proc.reveal(now=step.at)
        elif step.kind == "td":
            proc, _ = proc.td_decide(who, now=step.at)
    assert proc is not None
    return proc, match, ruleset


def _event_details(event: ArmageddonEvent) -> dict[str, Any]:
    return {
        "event": event.kind.value,
        "text": event.text,
        "commitment": event.commitment,
        "seconds": event.seconds,
        "choice": None if event.choice is None else event.choice.value,
        "salt": event.salt,
        "round": event.round,
        "deadline": None if event.deadline is None else event.deadline.isoformat(),
    }


def _clock_statement(proc: ArmageddonProcedure, ruleset: Ruleset) -> str:
    assert proc.white is not None
    assert proc.black is not None
    assert proc.white_seconds is not None
    black = format_clock(proc.black_seconds)
    white = format_clock(proc.white_seconds)
    inc = ruleset.armageddon.increment_seconds
    return (
        f"Armageddon (rules 3.ix): {proc.white} plays White with {white}, {proc.black} plays"
        f" Black with {black} and draw odds (a draw is a win for Black), increment {inc}."
        f" Lichess cannot give the two sides different clocks: create a rated"
        f" {ruleset.time_control.variant} game at {black}+{inc} with {proc.white} as White;"
        f" White has {white} of it and loses if they use more. The TDs check the time use."
    )


async def _apply_events(
    uow: UnitOfWork,
    arm: ArmageddonRow,
    before: ArmageddonProcedure | None,
    proc: ArmageddonProcedure,
    events: Sequence[ArmageddonEvent],
    match: MatchRow,
    ruleset: Ruleset,
    *,
    now: dt.datetime,
    actor: str,
) -> None:
    """Audit every event and carry out what the new phase asks for (deadlines, DMs, alerts)."""
    for event in events:
        await uow.audit.record(
            at=now,
            actor=actor,
            action=f"armageddon.{event.kind.value}",
            player=event.player,
            match_id=arm.match_id,
            details=_event_details(event),
        )
    arm.phase = proc.phase.value
    players = proc.players
    old_phase = None if before is None else before.phase
    old_round = 0 if before is None else before.rps_round
    if proc.phase is Phase.BIDDING and before is None:
        await uow.deadlines.add(
            DeadlineRow(
                kind=ARMAGEDDON_BIDS,
                due_at=proc.bid_deadline + dt.timedelta(seconds=1),
                match_id=arm.match_id,
                subject=f"armageddon:{arm.id}:bids",
                payload={"armageddon_id": arm.id},
                created_at=now,
            )
        )
        low = format_clock(proc.min_white_seconds)
        high = format_clock(proc.black_seconds)
        text = (
            f"Your match {match.id} is tied: an armageddon game decides it (rules 3.ix). Black has"
            f" {high} and draw odds, no increment. Send your sealed time offer for White,"
            f" `bid m:ss` between {low} and {high}, by {proc.bid_deadline:%a %d %b %H:%M} UTC."
            " The lower offer plays White with that time; equal offers go to"
            " rock-paper-scissors. A missing offer loses the bidding."
        )
        for player in players:
            await _dm(uow, player, text, now=now, key=f"armageddon-start:{arm.id}")
    if proc.phase is Phase.RPS and (old_phase is not Phase.RPS or proc.rps_round != old_round):
        await _cancel_deadlines(uow, arm.match_id, now=now, kinds=(ARMAGEDDON_BIDS, ARMAGEDDON_RPS))
        assert proc.rps_deadline is not None
        await uow.deadlines.add(
            DeadlineRow(
                kind=ARMAGEDDON_RPS,
                due_at=proc.rps_deadline + dt.timedelta(seconds=1),
                match_id=arm.match_id,
                subject=f"armageddon:{arm.id}:rps:{proc.rps_round}",
                payload={"armageddon_id": arm.id, "round": proc.rps_round},
                created_at=now,
            )
        )
        text = (
            f"Armageddon of match {match.id}: {events[-1].text} Send `rps rock`, `rps paper` or"
            f" `rps scissors` by {proc.rps_deadline:%a %d %b %H:%M} UTC."
        )
        for player in players:
            await _dm(uow, player, text, now=now, key=f"armageddon-rps:{arm.id}:{proc.rps_round}")
    if proc.phase is Phase.DECIDED and old_phase is not Phase.DECIDED:
        await _cancel_deadlines(uow, arm.match_id, now=now, kinds=(ARMAGEDDON_BIDS, ARMAGEDDON_RPS))
        arm.white, arm.white_seconds = proc.white, proc.white_seconds
        text = _clock_statement(proc, ruleset)
        for player in players:
            await _dm(uow, player, text, now=now, key=f"armageddon-clocks:{arm.id}")
    if proc.phase is Phase.NEEDS_TD and old_phase is not Phase.NEEDS_TD:
        await _cancel_deadlines(uow, arm.match_id, now=now, kinds=(ARMAGEDDON_BIDS, ARMAGEDDON_RPS))
        settings = await _stage_settings(uow, match.stage)
        await _alert_tds(
            uow,
            settings.get("tds", []),
            now=now,
            key=f"armageddon-td:{arm.id}",
            text=(
                f"Armageddon of match {match.id} ({players[0]} v {players[1]}): neither player"
                " chose in rock-paper-scissors. Decide who plays White:"
                f" acwc stage armageddon decide {match.id} --white USER"
            ),
        )
    await uow.session.flush()


async def ensure_armageddon(
    uow: UnitOfWork, row: MatchRow, *, now: dt.datetime
) -> ArmageddonRow | None:
    """Start the armageddon procedure of a tied knockout match (rules 3.vii.2, 3.viii.5), once."""
    if row.stage not in KNOCKOUT_VALUES or row.black_first is None:
        return None
    repo = StagesRepository(uow.session)
    existing = await repo.armageddon_for_match(row.id)
    if existing is not None:
        return existing
    ruleset = _ruleset_from(await _stage_settings(uow, row.stage))
    players = (PlayerId(row.white_first), PlayerId(row.black_first))
    proc, events = ArmageddonProcedure.start(players, now=now, ruleset=ruleset)
    arm = await repo.add_armageddon(
        ArmageddonRow(match_id=row.id, phase=proc.phase.value, started_at=now, findings=[])
    )
    await repo.add_step(arm.id, kind="start", at=now)
    await _apply_events(uow, arm, None, proc, events, row, ruleset, now=now, actor="bot")
    return arm


async def _act(
    uow: UnitOfWork,
    arm: ArmageddonRow,
    *,
    kind: str,
    now: dt.datetime,
    actor: str,
    player: str | None = None,
    value: str | None = None,
) -> ArmageddonProcedure:
    """Apply one input to the procedure, store it, and carry out its effects."""
    before, match, ruleset = await _procedure(uow, arm)
    salt = None
    stored_secret = await uow.settings.get(SALT_SECRET_KEY)
    secret = stored_secret or secrets.token_hex(32)
    if kind in ("bid", "rps"):
        steps = len(await StagesRepository(uow.session).steps(arm.id))
        salt = armageddon_salt(secret, match_id=arm.match_id, step=steps, player=player or "")
    who = PlayerId(player or "")
    if kind == "bid":
        proc, events = before.submit_bid(who, value or "", salt=salt or "", now=now)
    elif kind == "rps":
        proc, events = before.submit_rps(who, value or "", salt=salt or "", now=now)
    elif kind == "reveal":
        proc, events = before.reveal(now=now)
    else:
        proc, events = before.td_decide(who, now=now)
    if salt is not None and stored_secret is None:
        await set_salt_secret(uow, secret)  # only once an input was accepted
    await StagesRepository(uow.session).add_step(
        arm.id, kind=kind, at=now, player=player, value=value, salt=salt
    )
    await _apply_events(uow, arm, before, proc, events, match, ruleset, now=now, actor=actor)
    return proc


SALT_SECRET_KEY = "armageddon.salt_secret"
"""The settings row holding the tournament's secret that the sealed values' salts derive from."""


def armageddon_salt(secret: str, *, match_id: int, step: int, player: str) -> str:
    """The salt of a sealed bid or choice: HMAC-SHA256 of the tournament's secret and the step.

    Derived, not drawn, so a replay of the same inputs (a restarted service, the crash test's
    uninterrupted twin run) stores the same steps and audit entries. The secret is created once
    (random, stored in the settings table with the first accepted sealed value); a demo or a test
    may store a seed-derived one first with :func:`set_salt_secret`. Until the reveal nobody
    outside the database can compute a salt, so the published commitments still hide the values
    (rules 3.ix).
    """
    message = f"{match_id}:{step}:{normalise_username(player) if player else ''}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


async def set_salt_secret(uow: UnitOfWork, secret: str) -> None:
    """Store the secret salts derive from (before any armageddon; the caller commits)."""
    await uow.settings.set(SALT_SECRET_KEY, secret)


def _no_armageddon(match_id: int) -> ArmageddonError:
    return ArmageddonError(
        ArmageddonErrorReason.WRONG_PHASE,
        f"Match {match_id} has no armageddon game to bid or choose for.",
    )


async def armageddon_action(
    uow: UnitOfWork,
    config: Config,
    *,
    match_id: int,
    player: str,
    command: commands.Bid | commands.Rps,
    now: dt.datetime,
) -> str:
    """A player's sealed bid or rock-paper-scissors choice (rules 3.ix.1.2-3); the reply text.

    Raises :class:`rules.stages.armageddon.ArmageddonError` (a ``RulesError``) for anything the
    rules
    refuse: no armageddon for this match, not a player of it, a second offer, a late offer, ...
    """
    arm = await StagesRepository(uow.session).armageddon_for_match(match_id)
    if arm is None:
        raise _no_armageddon(match_id)
    who = normalise_username(player)
    if isinstance(command, commands.Bid):
        proc = await _act(
            uow,
            arm,
            kind="bid",
            now=now,
            actor=who,
            player=who,
            value=format_clock(command.seconds),
        )
        if proc.phase is Phase.BIDDING:
            return (
                f"Your time offer of {format_clock(command.seconds)} for White is sealed; it is"
                " revealed when your opponent's offer is in or the deadline passes"
                f" ({proc.bid_deadline:%a %d %b %H:%M} UTC)."
            )
    else:
        proc = await _act(
            uow, arm, kind="rps", now=now, actor=who, player=who, value=command.hand.value
        )
        if proc.phase is Phase.RPS and proc.view(who).own_choice is not None:
            return (
                f"Your choice for round {proc.rps_round} is sealed; it is revealed when your"
                " opponent's choice is in or the deadline passes."
            )
    return _phase_reply(proc, who)


async def handle_armageddon(
    uow: UnitOfWork,
    config: Config,
    *,
    match_id: int,
    player: str,
    command: commands.Bid | commands.Rps,
    now: dt.datetime,
    via: str,
) -> Reply:
    """``bid``/``rps`` texts from :func:`bot.weekly.handle_text`, the one door for a player's text.

    A refusal raises ``ArmageddonError`` (a ``RulesError``), which ``handle_text`` turns into
    its refusal reply; ``via`` is not stored: the procedure's steps keep who and when.
    """
    text = await armageddon_action(
        uow, config, match_id=match_id, player=player, command=command, now=now
    )
    return Reply(text, changed=True, command=commands.format_command(command))


def _phase_reply(proc: ArmageddonProcedure, who: PlayerId) -> str:
    view = proc.view(who)
    if view.phase is Phase.DECIDED:
        assert view.white is not None
        assert view.white_seconds is not None
        colour = "White" if view.white == who else "Black"
        return (
            f"Colours decided: {view.white} plays White with {format_clock(view.white_seconds)},"
            f" {view.black} plays Black with {format_clock(view.black_seconds)} and draw odds."
            f" You play {colour}."
        )
    if view.phase is Phase.RPS:
        return (
            f"The offers were equal: rock-paper-scissors round {view.rps_round} decides who plays"
            " White. Send `rps rock`, `rps paper` or `rps scissors`."
        )
    return "Neither player chose in rock-paper-scissors: the TDs decide who plays White."


async def td_decide_armageddon(
    uow: UnitOfWork, *, match_id: int, white: str, now: dt.datetime, actor: str
) -> str:
    """The TDs name White when neither player took part in rock-paper-scissors."""
    arm = await StagesRepository(uow.session).armageddon_for_match(match_id)
    if arm is None:
        raise _no_armageddon(match_id)
    proc = await _act(uow, arm, kind="td", now=now, actor=actor, player=normalise_username(white))
    return _phase_reply(proc, normalise_username(white))


async def _armageddon_deadline(uow: UnitOfWork, firing: Firing) -> None:
    """A bid or rock-paper-scissors deadline passed: reveal what is in (rules 3.ix.1.2-3)."""
    arm_id = firing.deadline.payload.get("armageddon_id")
    arm = None if arm_id is None else await StagesRepository(uow.session).armageddon(int(arm_id))
    if arm is None:
        return
    proc, _, _ = await _procedure(uow, arm)
    if firing.deadline.kind == ARMAGEDDON_BIDS and proc.phase is not Phase.BIDDING:
        return
    if firing.deadline.kind == ARMAGEDDON_RPS and (
        proc.phase is not Phase.RPS or proc.rps_round != firing.deadline.payload.get("round")
    ):
        return
    await _act(uow, arm, kind="reveal", now=firing.now, actor="bot")


# --------------------------------------------------------------------------------------------
# The armageddon game (rules 3.ix.1.1, 3.ix.1.4)


async def _store_game(
    uow: UnitOfWork,
    game: Game,
    row: MatchRow,
    *,
    refusal: str | None,
    now: dt.datetime,
    source: str = "lichess",
) -> None:
    values = game_row_values(game)
    existing = await uow.games.get(game.id)
    if existing is None:
        await uow.games.add(
            GameRow(
                **values,
                match_id=row.id,
                counted=False,
                refusal=refusal,
                source=source,
                recorded_at=now,
            )
        )
    else:
        for key, value in values.items():
            setattr(existing, key, value)
        existing.counted, existing.refusal, existing.recorded_at = False, refusal, now
    await uow.session.flush()


async def armageddon_game(
    uow: UnitOfWork,
    config: Config,
    row: MatchRow,
    game: Game,
    *,
    now: dt.datetime,
    source: str = "lichess",
) -> bool:
    """Take a game between the players of a match in state ``armageddon``; True if stored.

    Game intake hands such games here instead of checking them against the 2+5 match clock. The
    first finished game without increment after the colours are decided is the armageddon game:
    it decides the match (White wins only by winning, rules 3.ix.1.1) and is checked with
    :func:`rules.stages.armageddon.verify_armageddon_game`; what is wrong or cannot be verified goes
    to the TDs. A game with an increment, or one before the colours are decided, is stored refused
    and the TDs are told.
    """
    arm = await ensure_armageddon(uow, row, now=now)
    if arm is None or game.created_at < arm.started_at:
        return False
    proc, _, ruleset = await _procedure(uow, arm)
    link = f"https://lichess.org/{game.id}"
    if arm.game_id is not None and arm.game_id != game.id:
        await _store_game(uow, game, row, refusal="match_complete", now=now, source=source)
        if game.status.is_played:
            await td_alert(
                uow,
                config,
                now=now,
                key=f"armageddon-extra:{game.id}",
                text=f"Game {link} came after the armageddon game of match {row.id}; not counted.",
            )
        return True
    if game.clock_increment != ruleset.armageddon.increment_seconds:
        await _store_game(uow, game, row, refusal="wrong_clock", now=now, source=source)
        await td_alert(
            uow,
            config,
            now=now,
            key=f"armageddon-clock:{game.id}",
            text=(
                f"Game {link} between {game.white} and {game.black} was played while match"
                f" {row.id} waits for its armageddon game, but with increment"
                f" {game.clock_increment}; armageddon has none (rules 3.ix.1.4). Not counted."
            ),
        )
        return True
    if proc.phase is not Phase.DECIDED:
        await _store_game(uow, game, row, refusal="armageddon_undecided", now=now, source=source)
        await td_alert(
            uow,
            config,
            now=now,
            key=f"armageddon-early:{game.id}",
            text=(
                f"Game {link} of match {row.id} was played before the armageddon colours were"
                " decided; not counted."
            ),
        )
        return True
    if not game.status.is_finished:
        await _store_game(uow, game, row, refusal=None, now=now, source=source)
        return True
    if not game.status.is_played:
        await _store_game(uow, game, row, refusal=game.status.value, now=now, source=source)
        return True
    winner, findings = armageddon_result(proc, game, ruleset=ruleset)
    await _store_game(uow, game, row, refusal=ARMAGEDDON_GAME, now=now, source=source)
    arm.game_id, arm.winner, arm.played_at, arm.phase = game.id, winner, now, "played"
    arm.findings = [
        {"kind": f.kind.value, "severity": f.severity.value, "message": f.message} for f in findings
    ]
    row.outcome = (
        Outcome.FIRST_WINS.value if winner == row.white_first else Outcome.SECOND_WINS.value
    )
    row.decided_by, row.state, row.completed_at = "armageddon", "complete", now
    await uow.audit.record(
        at=now,
        actor="bot" if source == "lichess" else source,
        action="armageddon.played",
        match_id=row.id,
        player=winner,
        details={"game": game.id, "winner": winner, "findings": arm.findings},
    )
    loser = row.black_first if winner == row.white_first else row.white_first
    text = f"{winner} wins the armageddon game {link} and match {row.id} against {loser}."
    for player in (row.white_first, row.black_first):
        if player is not None:
            await _dm(uow, player, text, now=now, key=f"armageddon-result:{arm.id}")
    if findings:
        facts = " ".join(f"[{f.severity.value}] {f.message}" for f in findings)
        await td_alert(
            uow,
            config,
            now=now,
            key=f"armageddon-check:{game.id}",
            text=f"Armageddon game {link} of match {row.id} ({winner} won) needs a look: {facts}",
        )
    await uow.session.flush()
    return True


async def record_armageddon_game(
    uow: UnitOfWork,
    config: Config,
    *,
    match_id: int,
    result: str,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> PlayerId:
    """A TD records the armageddon game by hand (``1-0``, ``0-1``, ``1/2-1/2``); the winner."""
    from bot.td import parse_result

    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    if row.state != "armageddon":
        raise OperationError(f"match {match_id} is {row.state}: it has no armageddon game to play")
    arm = await StagesRepository(uow.session).armageddon_for_match(match_id)
    if arm is None:
        raise OperationError(f"match {match_id} has not started its armageddon procedure")
    proc, _, ruleset = await _procedure(uow, arm)
    if proc.phase is not Phase.DECIDED or proc.white is None or proc.black is None:
        raise OperationError(
            f"the colours of the armageddon of match {match_id} are not decided yet"
            f" ({proc.phase.value})"
        )
    status, winner = parse_result(result)
    game = Game(
        id=GameId(f"td-{match_id}-armageddon"),
        white=proc.white,
        black=proc.black,
        status=status,
        winner=winner,
        variant=ruleset.time_control.variant,
        rated=True,
        clock_limit=ruleset.armageddon.black_seconds,
        clock_increment=ruleset.armageddon.increment_seconds,
        created_at=now,
        last_move_at=now,
    )
    if (
        not await armageddon_game(uow, config, row, game, now=now, source="td")
        or arm.winner is None
    ):
        raise OperationError(
            f"the armageddon game of match {match_id} was not accepted; see the TD alerts"
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="armageddon.record",
        reason=reason,
        match_id=match_id,
        details={"result": result},
    )
    return PlayerId(arm.winner)


# --------------------------------------------------------------------------------------------
# Hooks


async def sync_knockout(uow: UnitOfWork, *, now: dt.datetime, config: Config) -> list[str]:
    """Create what tied knockout matches are owed (repeat weeks, armageddon procedures).

    The match hook does this as games arrive; results a TD records by hand do not run hooks,
    so ``acwc stage advance`` and ``acwc stage sync`` catch up. Idempotent.
    """
    done = []
    for row in await StagesRepository(uow.session).matches_of_stages(KNOCKOUT_VALUES):
        if row.state == VOID or row.black_first is None:
            continue
        outcome = await _outcome(uow, row)
        if outcome is Outcome.REPEAT:
            new = await ensure_next_week(uow, row, now=now, config=config)
            if new is not None:
                done.append(f"match {row.id} tied: week {new.week} is match {new.id}")
        elif outcome is Outcome.ARMAGEDDON and row.decided_by != "armageddon":
            had = await StagesRepository(uow.session).armageddon_for_match(row.id)
            if had is None:
                await ensure_armageddon(uow, row, now=now)
                done.append(f"match {row.id} tied: armageddon bidding started")
    return done


@dataclass
class StagesContext:
    """What the match hook needs beyond (uow, match, outcome): the config, bound when the
    service starts (a test binds it with :meth:`bind`)."""

    config: Config | None = None

    def bind(self, config: Config) -> None:
        self.config = config

    def bind_service(self, service: Any) -> None:
        self.bind(service.config)

    async def on_match_changed(
        self, uow: UnitOfWork, match_id: int, outcome: Outcome | None
    ) -> None:
        """``hooks.match_changed``: a tied knockout match gets its next week or its armageddon."""
        if outcome not in (Outcome.REPEAT, Outcome.ARMAGEDDON):
            return
        row = await uow.matches.get(match_id)
        if row is None or row.stage not in KNOCKOUT_VALUES:
            return
        now = row.completed_at
        assert now is not None  # refresh_match stamps a decided outcome
        if outcome is Outcome.REPEAT:
            if self.config is None:
                raise RuntimeError("the stages feature is not bound to a service (bind)")
            await ensure_next_week(uow, row, now=now, config=self.config)
        else:
            await ensure_armageddon(uow, row, now=now)


def register(hooks: Hooks) -> StagesContext:
    """Match hooks of the later stages and the armageddon deadlines; returns their context."""
    ctx = StagesContext()
    hooks.match_changed.append(ctx.on_match_changed)
    hooks.service_start.append(ctx.bind_service)
    hooks.deadline_handlers[ARMAGEDDON_BIDS] = _armageddon_deadline
    hooks.deadline_handlers[ARMAGEDDON_RPS] = _armageddon_deadline
    return ctx


# --------------------------------------------------------------------------------------------
# Withdrawals and disqualifications (rules 8)


@dataclass(frozen=True, slots=True)
class Table:
    """A small table for people (``text``) and scripts (``data``)."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def text(self) -> str:
        from bot.cli.output import table

        return f"{self.title}\n{table(self.headers, self.rows)}"

    def data(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "rows": [dict(zip(self.headers, row, strict=True)) for row in self.rows],
        }


@dataclass(frozen=True, slots=True)
class ExitPreview:
    """What a withdrawal or disqualification changes: the tables before and after it.

    :func:`exit_player` has already made the change in the unit of work; commit it to keep it,
    leave the unit of work without committing to drop it.
    """

    player: PlayerId
    username: str
    kind: str
    stage: str
    last_round: int
    reason: str
    before: tuple[Table, ...]
    after: tuple[Table, ...]
    changes: tuple[str, ...] = field(default=())

    def text(self) -> str:
        parts = [
            f"{self.username}: {self.kind.replace('_', ' ')} in the {self.stage} stage"
            f" (after round {self.last_round}); reason: {self.reason}",
            "",
            "BEFORE",
            *(t.text() for t in self.before),
            "",
            "AFTER",
            *(t.text() for t in self.after),
        ]
        if self.changes:
            parts += ["", "CHANGES", *(f"  - {c}" for c in self.changes)]
        return "\n".join(parts)

    def data(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "username": self.username,
            "kind": self.kind,
            "stage": self.stage,
            "last_round": self.last_round,
            "reason": self.reason,
            "before": [t.data() for t in self.before],
            "after": [t.data() for t in self.after],
            "changes": list(self.changes),
        }


def _qual_table(standings: Standings | None, title: str) -> Table:
    rows: tuple[tuple[str, ...], ...] = ()
    if standings is not None:
        rows = tuple(
            (
                str(r.rank),
                r.username,
                format_points(r.match_points),
                format_points(r.buchholz_median),
                format_points(r.progressive),
                r.status.value,
            )
            for r in standings.rows
        )
    return Table(title, ("#", "player", "pts", "median-buchholz", "cumulative", "status"), rows)


def _pool_table(pool: Pool, rows: Sequence[StandingRow]) -> Table:
    return Table(
        f"{pool.value} pool",
        ("#", "player", "match pts", "game pts", "played", "tiebreak"),
        tuple(
            (
                str(r.rank),
                r.player,
                format_points(r.match_points),
                format_points(r.game_points),
                str(r.matches_played),
                "" if r.separated_by is None else r.separated_by.value,
            )
            for r in rows
        ),
    )


def _bracket_table(bracket: Bracket) -> Table:
    rows = []
    for pairing in bracket.pairings():
        winner = bracket.winner_of(pairing.slot)
        rows.append(
            (
                pairing.slot.value,
                f"{pairing.white_first} ({pairing.white_source})",
                f"{pairing.black_first} ({pairing.black_source})",
                winner or "",
            )
        )
    return Table("knockout", ("match", "white in game 1", "black in game 1", "winner"), tuple(rows))


async def _void(uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
    row.state = VOID
    await _cancel_deadlines(uow, row.id, now=now)


async def _award(
    uow: UnitOfWork, row: MatchRow, winner: str, *, now: dt.datetime, why: str, actor: str
) -> str:
    row.outcome = (
        Outcome.FIRST_WINS.value if winner == row.white_first else Outcome.SECOND_WINS.value
    )
    row.decided_by, row.state, row.completed_at = "forfeit", "complete", now
    await _cancel_deadlines(uow, row.id, now=now)
    await uow.audit.record(
        at=now, actor=actor, action="match.forfeit", match_id=row.id, player=winner, reason=why
    )
    return f"match {row.id} goes to {winner} ({why})"


async def _qualification_exit(
    uow: UnitOfWork,
    config: Config,
    pid: PlayerId,
    kind: ExitKind,
    *,
    now: dt.datetime,
    actor: str,
) -> tuple[int, tuple[Table, ...], tuple[Table, ...], list[str]]:
    stage = await _stage_row(uow, StageKind.QUALIFICATION)
    field_, res, gone, _ = await quals.results(uow, stage, config.rules, finished_only=False)
    last_round = 0
    unfinished: MatchRow | None = None
    by_round: dict[int, MatchRow] = {}
    changes: list[str] = []
    for stored in await quals.rounds(uow, stage):
        mine = [m for m in stored.matches if pid in (m.white_first, m.black_first)]
        if stored.row.state not in quals.COUNTED_ROUND_STATES:
            if mine:
                changes.append(
                    f"round {stored.row.number} is only proposed and pairs {pid}: pair it again"
                )
            continue
        if mine:
            last_round = stored.row.number
            by_round[stored.row.number] = mine[0]
            unfinished = mine[0] if mine[0].state != "complete" else None
    if unfinished is not None and unfinished.black_first is None:
        unfinished = None
    report = exit_report(
        field_,
        res,
        Exit(pid, kind, last_round),
        unfinished=None if unfinished is None else to_match(unfinished, round=last_round),
        earlier_exits=gone,
    )
    for _old, new in report.changed:
        if new.kind is not RoundKind.FORFEIT_WIN or new.adjudication is Adjudication.NONE:
            continue
        row = by_round[new.round]
        why = (
            "rules 8.i.1: unfinished when the opponent left"
            if new.adjudication is Adjudication.UNFINISHED_AT_EXIT
            else "rules 8.i.2: adjudicated after an engine mark"
        )
        changes.append(await _award(uow, row, new.player, now=now, why=why, actor=actor))
        await _dm(
            uow,
            new.player,
            f"Your qualification match {row.id} (round {new.round}) is awarded to you: {pid}"
            f" left the championship ({why}).",
            now=now,
            key=f"exit-award:{row.id}",
        )
    before = (_qual_table(report.before, "qualification standings"),)
    after = (_qual_table(report.after, "qualification standings"),)
    return last_round, before, after, changes


async def _candidates_exit(
    uow: UnitOfWork, config: Config, pid: PlayerId, *, now: dt.datetime
) -> tuple[int, tuple[Table, ...], tuple[Table, ...], list[str]]:
    before_tables = await pool_tables(uow, config)
    before = tuple(_pool_table(p, t[1]) for p, t in before_tables.items())
    stage = await _stage_row(uow, StageKind.CANDIDATES)
    last_round = 0
    changes = ["rules 8.ii: all their Candidates games are disregarded"]
    for rnd, rows in await _rounds(uow, stage):
        for row in rows:
            if pid not in (row.white_first, row.black_first):
                continue
            if rnd.state in ("approved", "published"):
                last_round = max(last_round, rnd.number)
            if row.state != "complete":
                await _void(uow, row, now=now)
                changes.append(f"match {row.id} (round {rnd.number}) is void")
    return last_round, before, (), changes


async def _knockout_exit(
    uow: UnitOfWork, config: Config, pid: PlayerId, *, now: dt.datetime
) -> tuple[tuple[Table, ...], tuple[Table, ...], list[str]]:
    bracket = await load_bracket(uow)
    if bracket is None:  # pragma: no cover - the semifinals start with a bracket
        raise OperationError("there is no knockout bracket")
    bracket = await _record_results(uow, bracket)
    before = (_bracket_table(bracket),)
    try:
        rebuild = rebuild_after_withdrawal(bracket, pid)
    except KnockoutError as e:
        if e.reason is not KnockoutErrorReason.NOT_IN_MATCH:
            raise
        return before, before, [f"{pid} did not play the Candidates pools: nothing moves"]
    new = rebuild.bracket
    changes = [f"rules 8.iii-iv: {p} moves up" for p in rebuild.moved_up]
    pairings = {p.slot: p for p in new.pairings()}
    for slot in rebuild.changed:
        stage, board = SLOT_PLACE[slot]
        rows = await _slot_rows(uow, slot)
        rounds = await uow.tournaments.rounds((await _stage_row(uow, stage)).id)
        round_row = rounds[0]
        for row in rows:
            await _void(uow, row, now=now)
            changes.append(f"match {row.id} ({slot.value}, week {row.week}) is void")
        pairing = pairings[slot]
        added = await uow.matches.add(
            _new_match(round_row, stage, board, pairing.white_first, pairing.black_first, config)
        )
        changes.append(
            f"{slot.value} is now match {added.id}: {added.white_first} v {added.black_first}"
        )
        for player in (added.white_first, added.black_first):
            if player is not None:
                await _dm(
                    uow,
                    player,
                    f"The {slot.value.replace('_', ' ')} was paired again after {pid} left the"
                    f" championship (rules 8.iii-iv): match {added.id}, {added.white_first} v"
                    f" {added.black_first}.",
                    now=now,
                    key=f"rebuild:{added.id}",
                )
    await _save_bracket(uow, new, now=now)
    return before, (_bracket_table(new),), changes


async def exit_player(
    uow: UnitOfWork,
    config: Config,
    *,
    player: str,
    kind: str,
    reason: str,
    engine_mark: bool,
    now: dt.datetime,
    actor: str,
) -> ExitPreview:
    """Withdraw or disqualify ``player`` in the current stage (rules 8, 6.5, 7.2-3).

    ``kind`` is ``withdrawal`` or ``disqualification``; ``engine_mark`` makes it an engine
    disqualification (rules 8.i.2). Qualification (8.i): their unfinished match goes to the
    opponent, an engine mark turns their finished matches into the opponents' wins, and they
    are not paired again. Candidates (8.ii): all their games are disregarded and their open
    matches void. Semifinal and final (8.iii-iv): the players below them move up and the changed
    knockout matches are voided and paired again.

    The change is made in ``uow`` and the returned preview shows the tables before and after;
    the caller commits to confirm. Raises :class:`OperationError` (unknown player, already out,
    bad kind, no reason) and ``RulesError`` from the rules (e.g. a decided final).
    """
    if kind not in ("withdrawal", "disqualification"):
        raise OperationError(f"{kind!r}: an exit is a withdrawal or a disqualification")
    if engine_mark and kind != "disqualification":
        raise OperationError("an engine mark leads to a disqualification, not a withdrawal")
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    pid = normalise_username(player)
    row = await uow.players.get(pid)
    if row is None:
        raise OperationError(f"{player} is not registered")
    if row.status != "active" or any(e.player_id == pid for e in await uow.stages.exits()):
        raise OperationError(f"{row.username} has already left the championship ({row.status})")
    exit_kind = ExitKind.ENGINE_DISQUALIFICATION if engine_mark else ExitKind(kind)
    tournament = await require_tournament(uow)
    current = StageKind(tournament.current_stage)
    in_stage = set()
    for k in (StageKind.QUALIFICATION, StageKind.CANDIDATES):
        stage = await _stage_row(uow, k)
        if any(e.player_id == pid for e in await uow.stages.entrants(stage.id)):
            in_stage.add(k)
    last_round = 0
    before: tuple[Table, ...] = ()
    after: tuple[Table, ...] = ()
    changes: list[str] = []
    stage_name = current.value
    if current is StageKind.QUALIFICATION:
        if StageKind.QUALIFICATION in in_stage:
            last_round, before, after, changes = await _qualification_exit(
                uow, config, pid, exit_kind, now=now, actor=actor
            )
        else:
            stage_name = "registration"
            changes = ["not in a stage yet: left out of every pairing from now on"]
    elif current is StageKind.CANDIDATES and StageKind.CANDIDATES in in_stage:
        last_round, before, after, changes = await _candidates_exit(uow, config, pid, now=now)
    elif current in KNOCKOUT:
        before, after, changes = await _knockout_exit(uow, config, pid, now=now)
    else:
        changes = [f"not in the {current.value} stage: nothing else changes"]
    await uow.stages.add_exit(
        PlayerExitRow(
            player_id=pid,
            stage=stage_name,
            kind=exit_kind.value,
            last_round=last_round,
            reason=reason,
            decided_by=actor,
            at=now,
        )
    )
    row.status = "withdrawn" if kind == "withdrawal" else "disqualified"
    row.status_reason = reason
    row.engine_mark = row.engine_mark or engine_mark
    await uow.session.flush()
    if current is StageKind.QUALIFICATION and StageKind.QUALIFICATION in in_stage:
        # Recomputed from storage: the rules' report ranks only rounds it was given whole.
        after = (_qual_table(await quals.standings(uow, config.rules), "qualification standings"),)
    if current is StageKind.CANDIDATES and StageKind.CANDIDATES in in_stage:
        after_tables = await pool_tables(uow, config)
        after = tuple(_pool_table(p, t[1]) for p, t in after_tables.items())
    await uow.audit.record(
        at=now,
        actor=actor,
        action=f"player.{'withdraw' if kind == 'withdrawal' else 'disqualify'}",
        reason=reason,
        player=pid,
        details={
            "kind": exit_kind.value,
            "stage": stage_name,
            "last_round": last_round,
            "changes": changes,
        },
    )
    return ExitPreview(
        player=pid,
        username=row.username,
        kind=exit_kind.value,
        stage=stage_name,
        last_round=last_round,
        reason=reason,
        before=before,
        after=after,
        changes=tuple(changes),
    )


# --------------------------------------------------------------------------------------------
# Views: pools, crosstables, the bracket, the final placement


def _score_text(scores: tuple[Fraction, ...] | None) -> str:
    if scores is None:
        return "x"
    return "/".join(format_points(s) for s in scores) or "."


async def candidates_view(uow: UnitOfWork, config: Config) -> list[dict[str, Any]]:
    """Each pool: its players, standings (with tiebreaks) and crosstable of game scores."""
    cand = await _stage_row(uow, StageKind.CANDIDATES)
    if cand.state == "pending":
        raise OperationError("the Candidates have not started yet")
    tables = await pool_tables(uow, config)
    gone = set(await _exited(uow, StageKind.CANDIDATES))
    out = []
    for pool, (entries, rows, results) in tables.items():
        order = [r.player for r in rows]
        cross = crosstable(order, [r for r in results if not {r.first, r.second} & gone])
        out.append(
            {
                "pool": pool.value,
                "players": [
                    {
                        "number": i,
                        "player": e.player,
                        "seeded": None if e.seeded is None else e.seeded.value,
                        "qualification_place": e.qualification_place,
                        "withdrawn": e.player in gone,
                    }
                    for i, e in enumerate(entries, start=1)
                ],
                "standings": [
                    {
                        "rank": r.rank,
                        "player": r.player,
                        "match_points": format_points(r.match_points),
                        "game_points": format_points(r.game_points),
                        "played": r.matches_played,
                        "mutual_match_points": None
                        if r.mutual_match_points is None
                        else format_points(r.mutual_match_points),
                        "mutual_game_points": None
                        if r.mutual_game_points is None
                        else format_points(r.mutual_game_points),
                        "separated_by": None if r.separated_by is None else r.separated_by.value,
                    }
                    for r in rows
                ],
                "crosstable": {
                    "players": list(cross.players),
                    "rows": [
                        {
                            "player": row.player,
                            "scores": [_score_text(c.scores) for c in row.cells],
                            "game_points": format_points(row.game_points),
                            "match_points": format_points(row.match_points),
                        }
                        for row in cross.rows
                    ],
                },
            }
        )
    return out


async def armageddon_view(
    uow: UnitOfWork, match_id: int, *, viewer: str | None = None
) -> dict[str, Any] | None:
    """The armageddon of a match as ``viewer`` may see it (``None``: public, nothing sealed)."""
    arm = await StagesRepository(uow.session).armageddon_for_match(match_id)
    if arm is None:
        return None
    proc, _, _ = await _procedure(uow, arm)
    view = proc.view(None if viewer is None else normalise_username(viewer))
    return {
        "match": match_id,
        "phase": arm.phase,
        "players": list(view.players),
        "black_seconds": view.black_seconds,
        "bid_deadline": view.bid_deadline.isoformat(),
        "bids_in": list(view.bids_in),
        "bids": None if view.bids is None else list(view.bids),
        "own_bid": view.own_bid,
        "rps_round": view.rps_round,
        "rps_history": [
            [None if c is None else c.value for c in pair] for pair in view.rps_history
        ],
        "white": view.white,
        "black": view.black,
        "white_seconds": view.white_seconds,
        "decided_by": None if view.decided_by is None else view.decided_by.value,
        "game": arm.game_id,
        "winner": arm.winner,
        "findings": arm.findings,
    }


async def knockout_view(uow: UnitOfWork) -> dict[str, Any]:
    """The bracket: each knockout match with its weeks, scores, armageddon, winner; places 1-4."""
    bracket = await load_bracket(uow)
    if bracket is None:
        raise OperationError("the knockout has not started yet")
    bracket = await _record_results(uow, bracket)
    slots = []
    for pairing in bracket.pairings():
        weeks = []
        for row in await _slot_rows(uow, pairing.slot):
            state = await match_state(uow, row.id)
            weeks.append(
                {
                    "match": row.id,
                    "week": row.week,
                    "white_first": row.white_first,
                    "black_first": row.black_first,
                    "score": None if state.score is None else str(state.score),
                    "state": row.state,
                    "outcome": row.outcome,
                    "decided_by": row.decided_by,
                    "armageddon": await armageddon_view(uow, row.id),
                }
            )
        slots.append(
            {
                "slot": pairing.slot.value,
                "white_first": pairing.white_first,
                "black_first": pairing.black_first,
                "white_source": pairing.white_source,
                "black_source": pairing.black_source,
                "weeks": weeks,
                "winner": bracket.winner_of(pairing.slot),
            }
        )
    return {
        "upper": list(bracket.upper),
        "lower": list(bracket.lower),
        "withdrawn": list(bracket.withdrawn),
        "matches": slots,
        "placement": list(bracket.placement()),
    }
