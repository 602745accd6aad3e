"""What the players and the forum are told when a time is agreed or a result is in (rules 5.2,
6.6)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import readers
from bot.service.challenges import Announce, GameChallenges
from bot.service.forum import Forum
from bot.service.weekly.log import Loaded
from bot.views.scores import match_state
from rules.core.model import MatchId, PlayerId
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from rules.core.words import ENGLISH, Words
from rules.talk.notices import match_result, result_score, time_agreed
from rules.week.negotiation import Negotiation
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = ["DECIDED", "Announcements"]

DECIDED = (Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.TIED)


class Announcements:
    def __init__(
        self,
        config: Config,
        notifier: Notifier,
        forum: Forum,
        *,
        challenges: GameChallenges | None = None,
    ) -> None:
        self.ruleset = config.rules
        self.notifier = notifier
        self.forum = forum
        self.challenges = challenges

    async def agreement(
        self, uow: UnitOfWork, loaded: Loaded, negotiation: Negotiation, *, now: dt.datetime
    ) -> dict[PlayerId, str]:
        """Tell both players, and bring the round's pairings post up to date; returns each
        player's text."""
        row = loaded.row
        assert negotiation.agreement is not None
        row.agreed_time = negotiation.agreement.time
        texts: dict[PlayerId, str] = {}
        key = notice.time_agreed(row.id, row.week, negotiation.agreement.at.isoformat())
        names = await _names(uow, negotiation.players)
        tongues = await readers(uow, negotiation.players)
        for note in time_agreed(
            negotiation, now=now, ruleset=self.ruleset, names=names, readers=tongues
        ):
            if note.recipient is not None:
                texts[note.recipient] = note.text
        await self.forum.match_changed(uow, row, now=now)
        if self.challenges is not None:
            # One DM with the time and the game's link (issue 14): the challenge, made at
            # once by its deadline row, sends it (or, if Lichess fails, says to use the room).
            bare = time_agreed(
                negotiation,
                now=now,
                ruleset=self.ruleset,
                names=names,
                games_line="",
                readers=tongues,
            )
            announce = Announce(
                key.event, {n.recipient: n.text for n in bare if n.recipient is not None}
            )
            if await self.challenges.schedule_next(uow, row, now=now, announce=announce):
                return texts
        for player, text in texts.items():
            await self.notifier.dm(uow, now=now, to=player, text=text, key=key)
        return texts

    async def result(self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
        """The result to both players (rules 6.6); the round's forum posts follow it."""
        if row.outcome not in DECIDED or row.black_first is None:
            return
        state = await match_state(uow, row.id)
        winner = (
            PlayerId(row.white_first)
            if row.outcome is Outcome.FIRST_WINS
            else PlayerId(row.black_first)
            if row.outcome is Outcome.SECOND_WINS
            else None
        )
        players = (PlayerId(row.white_first), PlayerId(row.black_first))
        tongues = await readers(uow, players)

        def score(words: Words) -> str:
            return result_score(
                str(state.score),
                decided_by=row.decided_by,
                games_played=bool(state.games),
                words=words,
            )

        key = notice.result(row.id, row.week, row.outcome, row.decided_by)
        for note in match_result(
            match_id=MatchId(row.id),
            players=players,
            score=score(ENGLISH),
            winner=winner,
            names=await _names(uow, players),
            readers=tongues,
            scores={p: score(tongues.of(p)) for p in players},
        ):
            if note.recipient is not None:
                await self.notifier.dm(uow, now=now, to=note.recipient, text=note.text, key=key)
        await self.forum.match_changed(uow, row, now=now)

    async def tied_without_play(
        self, uow: UnitOfWork, row: MatchRow, *, decided_by: DecidedBy, now: dt.datetime
    ) -> None:
        """A tied match without play (rules 5.6: ``forfeit``; 5.9: ``td``): ½ match point each."""
        row.outcome, row.decided_by = Outcome.TIED, decided_by
        row.state, row.completed_at = MatchState.COMPLETE, now
        await uow.flush()
        await self.result(uow, row, now=now)


async def _names(uow: UnitOfWork, players: Iterable[PlayerId]) -> dict[PlayerId, str]:
    """The players as Lichess spells them (the public lines and forum drafts use these)."""
    out = {}
    for p in players:
        row = await uow.players.get(p)
        out[p] = row.username if row is not None else str(p)
    return out
