"""Eligibility and seeding from Lichess (rules 2.i, 2.ii.5, 3.v.3).

For each registered player: the account facts from ``GET /api/user``, the rated antichess games
from the export (every game in the peak window up to the games cut-off, then only as many older
ones as the 100-game count and the rating held when the window opened need), assessed by
:func:`rules.stages.seeding.assess`. The seeding rating is stored on the player; refusals and review
flags are reported, never acted on: excluding a player stays a TD decision.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.config import Config
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError, NotFoundError
from rules.core.model import Game, PlayerId
from rules.stages.seeding import AccountFacts, EligibilityVerdict, RatedGame, SeedingError, assess
from storage.db import Database


@dataclass(frozen=True, slots=True)
class RegistrationCheck:
    username: str
    verdict: EligibilityVerdict | None
    problem: str | None  # the account could not be checked (not found, API error, bad data)

    @property
    def is_eligible(self) -> bool:
        return self.verdict is not None and not self.verdict.refusals

    @property
    def reasons(self) -> list[str]:
        if self.problem is not None:
            return [self.problem]
        assert self.verdict is not None
        texts = [r.value.replace("_", " ") for r in self.verdict.refusals]
        texts += [f"review: {f.value.replace('_', ' ')}" for f in self.verdict.flags]
        return texts


def rated_game(game: Game, player: PlayerId) -> RatedGame | None:
    """The player's side of a rated game, or None when Lichess gave no rating."""
    white = game.white == player
    rating = game.white_rating if white else game.black_rating
    diff = game.white_rating_diff if white else game.black_rating_diff
    if rating is None:
        return None
    return RatedGame(game_id=game.id, created_at=game.created_at, rating=rating, rating_diff=diff)


async def player_games(client: LichessClient, username: str, config: Config) -> list[RatedGame]:
    """The rated antichess games the assessment needs, oldest first."""
    e = config.rules.eligibility
    variant = config.rules.time_control.variant
    player = PlayerId(username.lower())
    recent = await client.export_games(
        username, since=e.peak_window_start, until=e.games_before, perf_type=variant, rated=True
    )
    older_needed = max(1, e.min_rated_games - len(recent))
    older = await client.export_games(
        username,
        until=min(e.peak_window_start, e.games_before),
        perf_type=variant,
        rated=True,
        max_games=older_needed,
    )
    seen: set[str] = set()
    games: list[RatedGame] = []
    for g in [*older, *recent]:
        if g.id in seen or not g.rated or g.variant != variant:
            continue
        seen.add(g.id)
        rated = rated_game(g, player)
        if rated is not None:
            games.append(rated)
    return sorted(games, key=lambda g: (g.created_at, g.game_id))


async def check_player(client: LichessClient, username: str, config: Config) -> RegistrationCheck:
    try:
        user = await client.get_user(username)
        if user.created_at is None:
            return RegistrationCheck(username, None, "Lichess gave no account creation date")
        games = await player_games(client, username, config)
        account = AccountFacts(
            created_at=user.created_at,
            tos_violation=user.tos_violation,
            disabled=user.disabled,
            title=user.title,
        )
        verdict = assess(account, games, eligibility=config.rules.eligibility)
    except NotFoundError:
        return RegistrationCheck(username, None, "no such Lichess account")
    except SeedingError as e:
        return RegistrationCheck(username, None, f"cannot assess: {e}")
    except LichessError as e:
        return RegistrationCheck(username, None, f"Lichess error: {e}")
    return RegistrationCheck(username, verdict, None)


async def check_registrations(
    db: Database, client: LichessClient, config: Config, *, now: dt.datetime, actor: str
) -> list[RegistrationCheck]:
    """Check every registered player and store the seeding ratings found (audited)."""
    async with db.uow() as uow:
        players = [(p.id, p.username) for p in await uow.players.list()]
    checks = [await check_player(client, username, config) for _, username in players]
    async with db.uow() as uow:
        for (player_id, _), check in zip(players, checks, strict=True):
            row = await uow.players.get(player_id)
            if row is None:
                continue
            seed = None if check.verdict is None else check.verdict.seed_rating
            if seed is not None and seed != row.seed_rating:
                row.seed_rating = seed
            await uow.audit.record(
                at=now,
                actor=actor,
                action="registration.check",
                player=player_id,
                details={
                    "eligible": check.is_eligible,
                    "reasons": check.reasons,
                    "seed_rating": seed,
                    "rating_at_cutoff": None
                    if check.verdict is None
                    else check.verdict.rating_at_cutoff,
                    "peak_rating": None if check.verdict is None else check.verdict.peak_rating,
                    "rated_games": None
                    if check.verdict is None
                    else check.verdict.rated_games_counted,
                },
            )
        await uow.commit()
    return checks
