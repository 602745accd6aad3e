"""Account facts and rated games from Lichess for the registration check (rules 2.i, 3.v.3).

A closed (``disabled``) account answers only its names, so it gets its own reason, "account
closed on Lichess", not a missing creation date. The rated antichess games are read from the
export: every antichess game since the earlier of the peak window's start and the second cut-off
of "cheat detected" games (rules 2.2.3; casual ones too, for their status), then only as many older
rated ones as the 100-game count and the rating held when the window opened need.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from bot.errors import LichessUnreachable
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError, LichessHTTPError, LichessTransportError, NotFoundError
from bot.service.recheck import AccountLook
from bot.service.registration import REASONS, AccountRecord
from rules.core.colour import Colour
from rules.core.model import Game, GameStatus, PlayerId, normalise_username
from rules.core.ruleset import Ruleset
from rules.stages.seeding import AccountFacts, RatedGame
from rules.talk.registration import LICHESS_ERROR, NO_ACCOUNT, NO_CREATION_DATE

__all__ = ["LichessAccounts", "caught_cheating", "rated_game"]


def rated_game(game: Game, player: PlayerId) -> RatedGame | None:
    """The player's side of a rated game, or None when Lichess gave no rating."""
    white = game.white == player
    rating = game.white_rating if white else game.black_rating
    diff = game.white_rating_diff if white else game.black_rating_diff
    if rating is None:
        return None
    return RatedGame(game_id=game.id, created_at=game.created_at, rating=rating, rating_diff=diff)


def caught_cheating(game: Game, player: PlayerId) -> bool:
    """Lichess ended ``game`` as "cheat detected" against ``player`` (the winner is the
    other side; an opponent caught cheating does not count against the player)."""
    if game.status is not GameStatus.CHEAT or game.winner is None:
        return False
    mine = Colour.WHITE if game.white == player else Colour.BLACK
    return game.winner is not mine


class LichessAccounts:
    """The registration service's :class:`~bot.service.registration.AccountSource`."""

    def __init__(self, client: LichessClient, ruleset: Ruleset) -> None:
        self.client = client
        self.ruleset = ruleset

    async def games(
        self, username: str, on_game: Callable[[], None] | None = None
    ) -> tuple[list[RatedGame], list[dt.datetime]]:
        """The rated antichess games the assessment needs, oldest first, and when each of the
        player's antichess games that Lichess ended as "cheat detected" since the earlier of
        the two cut-offs of rules 2.2.3 was created. ``on_game``: told of each game read."""
        e = self.ruleset.eligibility
        variant = self.ruleset.time_control.variant
        player = PlayerId(username.lower())
        since = min(e.peak_window_start, e.cheat_two_cutoff)
        recent = await self.client.export_games(
            username, since=since, perf_type=variant, on_game=on_game
        )
        cheats = sorted(g.created_at for g in recent if caught_cheating(g, player))
        counted = sum(1 for g in recent if g.rated and g.created_at < e.games_before)
        older_needed = max(1, e.min_rated_games - counted)
        older = await self.client.export_games(
            username,
            until=min(since, e.games_before),
            perf_type=variant,
            rated=True,
            max_games=older_needed,
            on_game=on_game,
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
        return sorted(games, key=lambda g: (g.created_at, g.game_id)), cheats

    async def account(
        self, username: str, on_game: Callable[[], None] | None = None
    ) -> AccountRecord | str:
        try:
            user = await self.client.get_user(username)
            if user.disabled:  # Lichess answers a closed account's names and nothing else
                return REASONS["account_closed"]
            if user.created_at is None:
                return NO_CREATION_DATE
            games, cheats = await self.games(username, on_game)
        except NotFoundError:
            return NO_ACCOUNT
        except (LichessTransportError, LichessHTTPError) as e:
            if isinstance(e, LichessTransportError) or e.is_server_error:
                raise LichessUnreachable(str(e)) from None
            return LICHESS_ERROR % {"error": e}
        except LichessError as e:
            return LICHESS_ERROR % {"error": e}
        facts = AccountFacts(
            created_at=user.created_at,
            tos_violation=user.tos_violation,
            disabled=user.disabled,
            title=user.title,
        )
        return AccountRecord(facts, tuple(games), tuple(cheats))

    async def marks(self, usernames: Sequence[str]) -> dict[str, AccountLook | str] | str:
        """The accounts' facts alone, by username as given (the daily look of rules 7.3): one
        ``POST /api/users`` for up to 300 players, where one ``GET /api/user`` each was a
        request a player a day. A name Lichess does not know says so; a failed request is
        the sentence for all."""
        try:
            users = {u.id: u for u in await self.client.get_users(usernames)}
        except LichessError as e:
            return LICHESS_ERROR % {"error": e}
        variant = self.ruleset.time_control.variant
        found: dict[str, AccountLook | str] = {}
        for username in usernames:
            user = users.get(normalise_username(username))
            if user is None:
                found[username] = NO_ACCOUNT
                continue
            facts = AccountFacts(
                created_at=user.created_at or dt.datetime.min.replace(tzinfo=dt.UTC),
                tos_violation=user.tos_violation,
                disabled=user.disabled,
                title=user.title,
            )
            activity = (user.play_time, user.games_by_perf.get(variant))
            found[username] = AccountLook(facts, None if user.disabled else activity)
        return found

    async def cheat_games(
        self, username: str, *, since: dt.datetime
    ) -> dict[str, dt.datetime] | str:
        """The player's games of the variant finished since ``since`` that Lichess ended as
        "cheat detected" against them, by id with when each was created (the daily look,
        rules 2.2.3, 7.3)."""
        try:
            games = await self.client.export_games(
                username, since=since, perf_type=self.ruleset.time_control.variant
            )
        except LichessError as e:
            return LICHESS_ERROR % {"error": e}
        player = PlayerId(username.lower())
        return {g.id: g.created_at for g in games if caught_cheating(g, player)}

    async def team_members(self, team: str) -> set[str] | str:
        try:
            return set(await self.client.team_members(team))
        except LichessError as e:
            return f"Lichess error reading the members of {team}: {e}"

    async def team_leaders(self, team: str) -> set[str]:
        try:
            return set(await self.client.team_leaders(team))
        except LichessError:
            return set()

    async def token(self) -> tuple[str | None, frozenset[str]] | str:
        try:
            info = await self.client.test_token()
        except LichessError as e:
            return f"Lichess error testing the token: {e}"
        return info.user, info.scopes

    async def in_team(self, username: str, team: str) -> bool | str:
        """Whether the player is a member of ``team``, or why it could not be read."""
        try:
            return team in await self.client.teams_of(username)
        except LichessError as e:
            return LICHESS_ERROR % {"error": e}
