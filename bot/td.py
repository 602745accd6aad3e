"""TD operations shared by every door (CLI, web desk): each checks, changes and audits in one unit
of work, and raises :class:`OperationError` with a sentence for the TD when it cannot."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.config import USERNAME, Config
from rules.core.colour import Colour
from rules.core.model import GameStatus, normalise_username
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import MatchScore, Outcome, match_outcome, match_score
from storage.convert import to_game, to_match
from storage.models import GameRow, MatchRow, PlayerRow, StageRow, TournamentRow
from storage.uow import UnitOfWork

MatchChanged = Callable[[UnitOfWork, int, Outcome | None], Awaitable[None]]
"""A hook run in the same transaction after a match's result changed."""


class OperationError(Exception):
    """A TD or player request that cannot be done; the message says why and what would work."""


STAGE_ORDER = (
    StageKind.QUALIFICATION,
    StageKind.CANDIDATES,
    StageKind.SEMIFINAL,
    StageKind.FINAL,
    StageKind.THIRD_PLACE,
)


async def require_tournament(uow: UnitOfWork) -> TournamentRow:
    tournament = await uow.tournaments.current()
    if tournament is None:
        raise OperationError("no tournament yet: run `acwc tournament create` first")
    return tournament


async def create_tournament(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> TournamentRow:
    if await uow.tournaments.current() is not None:
        raise OperationError("a tournament already exists in this database")
    tournament = await uow.tournaments.add(
        TournamentRow(
            name=config.tournament.name, created_at=now, current_stage=StageKind.QUALIFICATION.value
        )
    )
    for kind in STAGE_ORDER:
        await uow.tournaments.add_stage(
            StageRow(tournament_id=tournament.id, kind=kind.value, state="pending")
        )
    await uow.audit.record(
        at=now, actor=actor, action="tournament.create", details={"name": tournament.name}
    )
    return tournament


def seeded_role(username: str, ruleset: Ruleset) -> str | None:
    """``title_holder`` / ``runner_up`` for the seeded entrants of rules 3.iii-iv, else None."""
    name = username.lower()
    if ruleset.seeding.title_holder and ruleset.seeding.title_holder.lower() == name:
        return "title_holder"
    if ruleset.seeding.runner_up and ruleset.seeding.runner_up.lower() == name:
        return "runner_up"
    return None


async def add_player(
    uow: UnitOfWork,
    config: Config,
    username: str,
    *,
    seed_rating: int | None,
    now: dt.datetime,
    actor: str,
) -> PlayerRow:
    if not USERNAME.match(username):
        raise OperationError(f"{username!r} is not a Lichess username (letters, digits, _ and -)")
    if seed_rating is not None and not 0 < seed_rating < 5000:
        raise OperationError(f"seed rating {seed_rating} is not a Lichess rating")
    await require_tournament(uow)
    player_id = normalise_username(username)
    if await uow.players.get(player_id) is not None:
        raise OperationError(f"{username} is already registered")
    row = await uow.players.add(
        PlayerRow(
            id=player_id,
            username=username,
            seed_rating=seed_rating,
            seeded_as=seeded_role(username, config.rules),
            status="active",
            engine_mark=False,
            registered_at=now,
        )
    )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="player.add",
        player=player_id,
        details={"username": username, "seed_rating": seed_rating, "seeded_as": row.seeded_as},
    )
    return row


async def remove_player(
    uow: UnitOfWork, username: str, *, reason: str, now: dt.datetime, actor: str
) -> None:
    """Remove a registration made in error. A player who has been paired is withdrawn instead."""
    player = await uow.players.get(normalise_username(username))
    if player is None:
        raise OperationError(f"{username} is not registered")
    if await uow.matches.count_for_player(player.id):
        raise OperationError(
            f"{player.username} has been paired already; withdraw them instead "
            "(`acwc player withdraw`), so their results stay on record"
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="player.remove",
        reason=reason,
        player=player.id,
        details={"username": player.username, "seed_rating": player.seed_rating},
    )
    await uow.players.remove(player)


@dataclass(frozen=True, slots=True)
class MatchState:
    """A stored match with its score recomputed from the counted games."""

    row: MatchRow
    games: tuple[GameRow, ...]
    score: MatchScore | None
    outcome: Outcome | None


async def match_state(uow: UnitOfWork, match_id: int) -> MatchState:
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    games = tuple(await uow.games.for_match(row.id))
    if row.black_first is None:
        return MatchState(row, games, None, None)
    match = to_match(row)
    score = match_score(match, [to_game(g) for g in games])
    return MatchState(row, games, score, match_outcome(score, match.format, week=row.week))


async def refresh_match(uow: UnitOfWork, match_id: int, *, now: dt.datetime) -> MatchState:
    """Recompute a match's state from its games (the one place that moves a match along).

    A match decided by forfeit, by a TD or by its armageddon game keeps that decision; one decided
    by games follows them, so a corrected game can reopen or re-decide it.
    """
    state = await match_state(uow, match_id)
    row = state.row
    if row.decided_by in ("forfeit", "td", "bye", "armageddon") or state.outcome is None:
        return state
    if state.outcome is Outcome.IN_PROGRESS:
        row.state, row.outcome, row.decided_by, row.completed_at = "scheduled", None, None, None
    else:
        if row.outcome != state.outcome.value:
            row.completed_at = now
        row.state = (
            "complete"
            if state.outcome in (Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.TIED)
            else state.outcome.value
        )
        row.outcome = state.outcome.value
        row.decided_by = "games"
    await uow.session.flush()
    return state


RESULTS = {
    "1-0": (GameStatus.RESIGN, Colour.WHITE),
    "0-1": (GameStatus.RESIGN, Colour.BLACK),
    "1/2-1/2": (GameStatus.DRAW, None),
    "½-½": (GameStatus.DRAW, None),
    "draw": (GameStatus.DRAW, None),
}


def parse_result(text: str) -> tuple[GameStatus, Colour | None]:
    try:
        return RESULTS[text.strip().lower()]
    except KeyError:
        raise OperationError(
            f"result {text!r} is not one of 1-0, 0-1, 1/2-1/2 (White's view)"
        ) from None


async def record_result(
    uow: UnitOfWork,
    match_id: int,
    *,
    game_number: int,
    result: str,
    reason: str,
    now: dt.datetime,
    actor: str,
    on_change: MatchChanged | None = None,
) -> MatchState:
    """A TD records game ``game_number`` of a match by hand or corrects it (rules 1.3).

    ``on_change`` runs the features' match hooks (result notices, knockout repeats), as game
    intake does for a game from Lichess.
    """
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    status, winner = parse_result(result)
    state = await match_state(uow, match_id)
    row = state.row
    if row.black_first is None:
        raise OperationError(f"match {match_id} is a bye; it has no games")
    if not 1 <= game_number <= min(len(state.games) + 1, row.games):
        raise OperationError(
            f"match {match_id} has {len(state.games)} counted games of {row.games}: "
            f"give a game number from 1 to {min(len(state.games) + 1, row.games)}"
        )
    match = to_match(row)
    if game_number <= len(state.games):
        game = state.games[game_number - 1]
        before = {"status": game.status, "winner": game.winner}
        game.status, game.winner = status.value, None if winner is None else winner.value
        action = "result.correct"
    else:
        white = match.white_in_game(game_number)
        game = await uow.games.add(
            GameRow(
                id=f"td-{match_id}-{game_number}-w{row.week}",
                match_id=row.id,
                white=white,
                black=match.opponent_of(white),
                status=status.value,
                winner=None if winner is None else winner.value,
                variant="antichess",
                rated=True,
                clock_limit=None,
                clock_increment=None,
                created_at=now,
                last_move_at=now,
                counted=True,
                refusal=None,
                source="td",
                recorded_at=now,
            )
        )
        before = None
        action = "result.record"
    await uow.session.flush()
    outcome_before = row.outcome
    new_state = await refresh_match(uow, match_id, now=now)
    if on_change is not None:
        changed = new_state.outcome if row.outcome != outcome_before else None
        await on_change(uow, match_id, changed)
    await uow.audit.record(
        at=now,
        actor=actor,
        action=action,
        reason=reason,
        match_id=match_id,
        details={
            "game": game.id,
            "number": game_number,
            "result": result,
            "before": before,
            "score": str(new_state.score),
            "outcome": None if new_state.outcome is None else new_state.outcome.value,
        },
    )
    return new_state
