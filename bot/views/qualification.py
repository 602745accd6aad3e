"""The qualification read back from storage: entrants, results, standings, a round's boards and
the TRF export (rules 3.v, 8.i).

Standings are recomputed from the stored matches and games every time (rules/swiss/tiebreaks.py);
no total is ever stored. The public standings page, ``acwc standings``, the pairing of the next
round and the stage progression all read them here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction

from bot.config import Config
from bot.errors import OperationError
from bot.views.scores import engine_marked_loser
from bot.views.tournament import stage_row
from rules.core.colour import Colour
from rules.core.model import PlayerId, normalise_username
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import HALF, Outcome, match_score
from rules.core.states import DecidedBy, MatchState, PlayerStatus
from rules.stages.qualification import (
    absent_result,
    bye_result,
    engine_adjudicated,
    forfeit_results,
    number_of_rounds,
    played_results,
    qualifier_count,
    withdrawn_result,
)
from rules.swiss.dutch import PlayerNumber, SwissPlayer, float_in_round
from rules.swiss.qualification_pairing import swiss_players, to_trf
from rules.swiss.results import Entrant, Exit, ExitKind, ResultKind, RoundResult
from rules.swiss.tiebreaks import Standings, compute_standings
from rules.swiss.trf import write_trf
from storage.convert import to_game, to_match
from storage.models import MatchRow, RoundRow, StageRow
from storage.uow import UnitOfWork

__all__ = [
    "COUNTED_ROUND_STATES",
    "BoardView",
    "RoundView",
    "StoredRound",
    "entrants",
    "exits",
    "match_results",
    "pairing_input",
    "qualification_stage",
    "qualifying_places",
    "results",
    "round_in_play",
    "round_results",
    "round_view",
    "rounds",
    "standings",
    "standings_and_results",
    "trf_export",
]

_RULED = {"first_wins": Fraction(1), "second_wins": Fraction(0), "tied": HALF}
COUNTED_ROUND_STATES = ("approved", "published", "complete")


async def qualification_stage(uow: UnitOfWork) -> StageRow:
    return await stage_row(uow, StageKind.QUALIFICATION)


async def entrants(uow: UnitOfWork, stage: StageRow) -> tuple[Entrant, ...]:
    rows = await uow.stages.entrants(stage.id)
    players = {p.id: p for p in await uow.players.list()}
    return tuple(
        Entrant(
            pairing_number=r.number,
            player=PlayerId(r.player_id),
            username=players[r.player_id].username,
            seed_rating=r.seed_rating,
        )
        for r in rows
    )


async def exits(uow: UnitOfWork) -> tuple[Exit, ...]:
    return tuple(
        Exit(player=PlayerId(r.player_id), kind=ExitKind(r.kind), last_round=r.last_round)
        for r in await uow.stages.exits(StageKind.QUALIFICATION.value)
    )


@dataclass(frozen=True, slots=True)
class StoredRound:
    row: RoundRow
    matches: tuple[MatchRow, ...]

    @property
    def is_finished(self) -> bool:
        return all(m.state == MatchState.COMPLETE for m in self.matches)


async def rounds(uow: UnitOfWork, stage: StageRow) -> list[StoredRound]:
    result = []
    for row in await uow.tournaments.rounds(stage.id):
        result.append(StoredRound(row, tuple(await uow.matches.for_round(row.id))))
    return result


async def match_results(
    uow: UnitOfWork, row: MatchRow, number: int, ruleset: Ruleset
) -> list[RoundResult]:
    """The results a finished match gives its players.

    A match lost by forfeit (no-show, rules 6.3; an exit, rules 8.i.1) is a forfeit: no meeting
    for the pairing (C.04.3). A match the TDs decided (rules 1.3, 4.5, 5.6, 5.9) counts as
    played with the ruled result: the two players met.
    """
    if row.black_first is None:
        return [bye_result(PlayerId(row.white_first), number, stages=ruleset.stages)]
    match = to_match(row, round=number)
    games = [to_game(g) for g in await uow.games.for_match(row.id)]
    score = match_score(match, games)
    if row.decided_by == DecidedBy.FORFEIT and row.outcome in (
        Outcome.FIRST_WINS,
        Outcome.SECOND_WINS,
    ):
        winner = match.white_first if row.outcome == Outcome.FIRST_WINS else match.black_first
        won, lost = forfeit_results(match, winner=winner, score=score if games else None)
        if score.games_played and await engine_marked_loser(uow, row) is not None:
            lost, won = engine_adjudicated(lost, won)  # rules 8.i.2: every game to the opponent
        return [won, lost]
    if row.decided_by in (DecidedBy.FORFEIT, DecidedBy.TD) and row.outcome in _RULED:
        first = _RULED[row.outcome]
        return [
            RoundResult(
                player=p,
                round=number,
                kind=ResultKind.PLAYED,
                match_points=points,
                opponent=o,
                colour=c,
                game_points=score.of(match, p),
                games=score.games_played,
            )
            for p, o, c, points in (
                (match.white_first, match.black_first, Colour.WHITE, first),
                (match.black_first, match.white_first, Colour.BLACK, 1 - first),
            )
        ]
    return list(played_results(match, games))


async def results(
    uow: UnitOfWork,
    stage: StageRow,
    ruleset: Ruleset,
    *,
    finished_only: bool = True,
    provisional: bool = False,
) -> tuple[tuple[Entrant, ...], list[RoundResult], tuple[Exit, ...], int]:
    """Every entrant's result in every finished round; the number of rounds counted.

    ``provisional``: a round in play counts too, with its decided matches' results and nothing
    (an unplayed round) for the players of its other matches: the standings "as they stand",
    which the desk's preview of a ruling compares (:mod:`bot.views.standings_change`).
    """
    field = await entrants(uow, stage)
    gone = await exits(uow)
    exit_round = {e.player: e.last_round for e in gone}
    out: list[RoundResult] = []
    counted = 0
    for stored in await rounds(uow, stage):
        await asyncio.sleep(0)  # a round at a time: the event loop serves others in between
        in_play = provisional and stored.row.state in COUNTED_ROUND_STATES
        if stored.row.state not in COUNTED_ROUND_STATES or not (stored.is_finished or in_play):
            if finished_only and not provisional:
                break
            continue
        # the round's games in one query; a round at a time, so that turning them into objects
        # never holds the event loop for the whole season's games
        await uow.games.preload(m.id for m in stored.matches)
        counted += 1
        number = stored.row.number
        seen: set[PlayerId] = set()
        for m in stored.matches:
            if not stored.is_finished and m.state != MatchState.COMPLETE:
                continue  # provisional: a match still in play gives nothing yet
            for r in await match_results(uow, m, number, ruleset):
                out.append(r)
                seen.add(r.player)
        for e in field:
            if e.player in seen:
                continue
            if e.player in exit_round and exit_round[e.player] < number:
                out.append(withdrawn_result(e.player, number))
            else:
                out.append(absent_result(e.player, number))
    return field, out, gone, counted


async def round_in_play(uow: UnitOfWork) -> int | None:
    """The number of the qualification round in play that has decided matches already (the
    live standings count them, marked provisional), else None."""
    try:
        stage = await qualification_stage(uow)
    except OperationError:
        return None
    for stored in await rounds(uow, stage):
        if stored.row.state in COUNTED_ROUND_STATES and not stored.is_finished:
            decided = any(m.state == MatchState.COMPLETE for m in stored.matches)
            return stored.row.number if decided else None
    return None


async def round_results(uow: UnitOfWork, ruleset: Ruleset) -> list[RoundResult]:
    """Every entrant's result in every finished round (the standings' round-by-round cells)."""
    stage = await qualification_stage(uow)
    _, out, _, _ = await results(uow, stage, ruleset)
    return out


async def qualifying_places(uow: UnitOfWork, ruleset: Ruleset) -> int:
    """How many of the standings' active players go to the Candidates (rules 3.v.4): the
    qualifiers, and one more for each seeded player who does not take part."""
    seeded = {
        normalise_username(n)
        for n in (ruleset.seeding.title_holder, ruleset.seeding.runner_up)
        if n
    }
    present = [
        p.username
        for p in await uow.players.list(status=PlayerStatus.ACTIVE)
        if p.id in seeded and p.seeded_as
    ]
    return qualifier_count(
        stages=ruleset.stages, seeding=ruleset.seeding, seeded_participants=present
    )


async def standings(uow: UnitOfWork, ruleset: Ruleset, *, through: int | None = None) -> Standings:
    """The standings of the finished rounds (``through``: only up to that round)."""
    table, _ = await standings_and_results(uow, ruleset, through=through)
    return table


async def standings_and_results(
    uow: UnitOfWork, ruleset: Ruleset, *, through: int | None = None, provisional: bool = False
) -> tuple[Standings, list[RoundResult]]:
    """:func:`standings` and the results they come from (:func:`round_results`), computed once
    (``provisional``: with the decided matches of the round in play, as :func:`results`)."""
    stage = await qualification_stage(uow)
    field, res, gone, _ = await results(uow, stage, ruleset, provisional=provisional)
    if not field:
        raise OperationError("the qualification has no entrants yet: pair round 1 first")
    if through is not None:
        res = [r for r in res if r.round <= through]
    # pure and the longest step (the tiebreaks of every player): in a worker thread, so the
    # event loop goes on serving while it runs
    table = await asyncio.to_thread(compute_standings, field, res, exits=gone)
    return table, res


# --- pairing a round -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardView:
    match_id: int
    board: int
    white: str | None
    black: str | None  # None: the bye
    white_score: Fraction
    black_score: Fraction | None
    white_colours: str
    black_colours: str | None
    white_float: str
    black_float: str | None


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    total_rounds: int
    state: str
    boards: tuple[BoardView, ...]


def _colour_string(player: SwissPlayer) -> str:
    return "".join(
        "-" if c is None else ("W" if c is Colour.WHITE else "B") for c in player.colours
    )


async def pairing_input(
    uow: UnitOfWork, stage: StageRow, config: Config, number: int
) -> tuple[tuple[Entrant, ...], list[SwissPlayer], int, frozenset[frozenset[int]]]:
    field, res, gone, counted = await results(uow, stage, config.rules)
    if counted != number - 1:
        raise OperationError(
            f"round {number} cannot be paired: only {counted} earlier round(s) are finished"
        )
    players = swiss_players(field, res, gone, rounds_played=number - 1)
    numbers = {e.player: e.pairing_number for e in field}
    forbidden = frozenset(
        frozenset((numbers[PlayerId(f.first)], numbers[PlayerId(f.second)]))
        for f in await uow.stages.forbidden(stage.id, round=number)
        if PlayerId(f.first) in numbers and PlayerId(f.second) in numbers
    )
    return field, players, number_of_rounds(len(field)), forbidden


async def round_view(uow: UnitOfWork, config: Config, number: int | None = None) -> RoundView:
    """A round's boards with each player's score, colour history and last float."""
    stage = await qualification_stage(uow)
    stored = await rounds(uow, stage)
    if not stored:
        raise OperationError("no qualification round has been paired yet")
    chosen = (
        stored[-1] if number is None else next((r for r in stored if r.row.number == number), None)
    )
    if chosen is None:
        raise OperationError(f"there is no qualification round {number}")
    field, players, total, _ = await pairing_input(uow, stage, config, chosen.row.number)
    by_id = {e.player: e for e in field}
    state_of = {p.number: p for p in players}
    by_number = {p.number: p for p in players}

    def side(player_id: str | None) -> tuple[str | None, Fraction | None, str | None, str | None]:
        if player_id is None:
            return None, None, None, None
        entrant = by_id[PlayerId(player_id)]
        p = state_of[PlayerNumber(entrant.pairing_number)]
        floated = float_in_round(p, 1, by_number) if p.history else "none"
        return entrant.username, p.score, _colour_string(p), floated

    boards = []
    for m in chosen.matches:
        w, ws, wc, wf = side(m.white_first)
        b, bs, bc, bf = side(m.black_first)
        assert w is not None
        assert ws is not None
        assert wc is not None
        assert wf is not None
        boards.append(BoardView(m.id, m.board, w, b, ws, bs, wc, bc, wf, bf))
    return RoundView(chosen.row.number, total, chosen.row.state, tuple(boards))


async def trf_export(uow: UnitOfWork, config: Config, *, trf2026: bool = False) -> str:
    """The qualification so far as a TRF file (finished rounds), ready to pair the next round."""
    stage = await qualification_stage(uow)
    field, res, gone, counted = await results(uow, stage, config.rules)
    if not field:
        raise OperationError("the qualification has no entrants yet: pair round 1 first")
    forbidden = [
        (PlayerId(f.first), PlayerId(f.second))
        for f in await uow.stages.forbidden(stage.id)
        if f.round is None
    ]
    tournament = to_trf(
        field,
        res,
        gone,
        rounds_played=counted,
        total_rounds=number_of_rounds(len(field)),
        forbidden=forbidden,
        name=config.tournament.name,
        trf2026=trf2026,
    )
    return write_trf(tournament)
