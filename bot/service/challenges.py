"""The bot's open challenges: one-click match games with the right settings (issue 14).

When a time is agreed, and after each counted game that leaves more to play, the match gets a
``game_challenge`` deadline row due at once; the deadline runner fires it in its own transaction,
and :meth:`GameChallenges.on_deadline` asks Lichess for an open challenge restricted to the two
players (``users=WHITE,BLACK``, White as the match's colour order names), rated, with the rule
set's clock and variant, named after the match, lapsing after the no-show window. The challenge
is stored (its id is the game's id, so intake knows the game first by it); both players get the
link of game 1 and of the armageddon game by DM, every game's in the match room, and each later
game's by DM too if they asked for it on their account page (``players.game_links_by_dm``).
A Lichess failure stores nothing but an audit entry and a retry a few minutes later.

The agreed time's DM waits for the challenge (:class:`Announce` in the deadline row's payload):
each player gets one DM with the time and game 1's link, the time control written out. If Lichess
fails, that DM goes out at once all the same, saying to play from the match room, and the link
follows alone when a later attempt makes the challenge.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.keys import NoticeKey
from bot.notify.kinds import NoticeKind
from bot.notify.languages import readers
from bot.runtime.deadlines import Ask, Firing
from rules.core.model import GameStatus, PlayerId
from rules.core.ruleset import StageKind, TimeControl
from rules.core.states import MatchState
from rules.core.words import Readers
from rules.talk.games import challenge_missing, challenge_name, game_link, room_link_line
from storage.convert import to_match
from storage.models import DeadlineRow, MatchRow
from storage.models_games import ChallengeRow
from storage.uow import UnitOfWork, Write

__all__ = [
    "CHALLENGE_DEADLINE",
    "Announce",
    "ChallengeFailed",
    "ChallengeMaker",
    "ChallengeSpec",
    "GameChallenges",
    "MadeChallenge",
]

log = logging.getLogger(__name__)

CHALLENGE_DEADLINE = "game_challenge"
RETRY_AFTER = dt.timedelta(minutes=5)
MAX_ATTEMPTS = 288
"""A day of attempts five minutes apart: a Lichess outage shorter than that delays the
challenge, never loses it."""


@dataclasses.dataclass(frozen=True, slots=True)
class ChallengeSpec:
    """The open challenge the bot asks Lichess for: the two players (White first), the game's
    settings, its name and when it lapses."""

    white: str
    black: str
    rated: bool
    clock_limit: int
    clock_increment: int
    variant: str
    name: str
    expires_at: dt.datetime
    starts_at: dt.datetime | None = None
    """The agreed time, for a match's first game still to come: a game Lichess creates itself
    (bulk pairing, :mod:`bot.service.bulk_games`) is created then."""


@dataclasses.dataclass(frozen=True, slots=True)
class MadeChallenge:
    """What Lichess made: the challenge's id (its game's id) and its link; ``writes``: what the
    maker did besides, recorded with it in the answer's firing (the maker runs outside any
    transaction: :class:`bot.runtime.deadlines.Ask`)."""

    id: str
    url: str
    writes: tuple[Write, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Announce:
    """The agreed time's DMs (``texts``: each player's, without a word on the games), handed to
    the game's challenge so that one DM carries the time and the link (issue 14); ``event``
    is the agreed time's notice event (:func:`bot.notify.keys.time_agreed`)."""

    event: str
    texts: Mapping[str, str]

    def payload(self) -> dict[str, object]:
        return {"event": self.event, "texts": dict(self.texts)}

    @classmethod
    def read(cls, value: object) -> Announce | None:
        """From a deadline row's payload (``None``: it has none)."""
        if not isinstance(value, Mapping):
            return None
        texts = value.get("texts")
        if not isinstance(texts, Mapping):
            return None
        return cls(str(value.get("event", "")), {str(p): str(t) for p, t in texts.items()})


class ChallengeFailed(Exception):
    """Lichess did not make the challenge (down, refused, unreadable); the text says why, and
    ``writes`` records what the maker did on the way (:class:`MadeChallenge`)."""

    def __init__(self, reason: str, writes: Sequence[Write] = ()) -> None:
        super().__init__(reason)
        self.writes = tuple(writes)


class ChallengeMaker(Protocol):
    """Creates an open challenge on Lichess; raises :class:`ChallengeFailed`."""

    async def __call__(self, spec: ChallengeSpec) -> MadeChallenge: ...


ARMAGEDDON = 0
"""The ``game_number`` of an armageddon game's challenge (it is none of the match's games)."""


def _subject(week: int, game: int) -> str:
    return f"week {week} armageddon" if game == ARMAGEDDON else f"week {week} game {game}"


@dataclasses.dataclass(frozen=True, slots=True)
class _Attempt:
    """What an attempt's first firing hands its answer: the match, the deadline row, the
    challenge asked for, the players' names (White first) and who gets a later game's link by
    DM, the next attempt's row (``None``: the last), and the first firing's time."""

    row: MatchRow
    deadline: DeadlineRow
    attempt: int
    announce: Announce | None
    spec: ChallengeSpec
    control: TimeControl
    white: PlayerId
    black: PlayerId
    names: Mapping[str, str]
    by_dm: Sequence[str]
    retry: int | None
    now: dt.datetime


async def _lasting(
    uow: UnitOfWork, row: MatchRow, *, week: int, game: int, expires_at: dt.datetime
) -> ChallengeRow | None:
    """A challenge of the game already made that lasts until ``expires_at`` and was not spent
    by an aborted game (lila)."""
    spent = {
        g.id
        for g in await uow.games.for_match(row.id, counted_only=False)
        if g.status is GameStatus.ABORTED
    }
    for lasting in await uow.lichess.challenges(row.id):
        if (
            lasting.week == week
            and lasting.game_number == game
            and lasting.expires_at >= expires_at
            and lasting.id not in spent
        ):
            return lasting
    return None


class GameChallenges:
    """Schedules and makes the match games' challenges; ``maker`` is ``None`` without Lichess."""

    def __init__(self, config: Config, notifier: Notifier, maker: ChallengeMaker | None) -> None:
        self.config = config
        self.notifier = notifier
        self.maker = maker

    @property
    def enabled(self) -> bool:
        return self.maker is not None and self.config.games.challenges

    async def schedule(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        *,
        game: int,
        now: dt.datetime,
        white: PlayerId | None = None,
        announce: Announce | None = None,
    ) -> bool:
        """Ask for game ``game``'s challenge of the match's current week, now (once); game
        :data:`ARMAGEDDON` with its ``white``. With ``announce`` (the agreed time's DMs) the
        challenge's link goes in those DMs: returns whether it was handed over (else the caller
        sends them)."""
        if not self.enabled or row.black_first is None:
            return False
        subject = _subject(row.week, game)
        extra = {} if announce is None else {"announce": announce.payload()}
        for open_row in await uow.deadlines.open_for_match(row.id):
            if open_row.kind == CHALLENGE_DEADLINE and open_row.subject == subject:
                if extra:  # a time agreed again before the first was announced: the new one
                    open_row.payload = {**open_row.payload, **extra}
                return announce is not None
        await uow.deadlines.add(
            DeadlineRow(
                kind=CHALLENGE_DEADLINE,
                due_at=now,
                match_id=row.id,
                subject=subject,
                payload={"week": row.week, "game": game, "white": white, "attempt": 1, **extra},
                created_at=now,
            )
        )
        return announce is not None

    async def schedule_armageddon(
        self, uow: UnitOfWork, row: MatchRow, *, white: PlayerId, now: dt.datetime
    ) -> None:
        """Ask for the armageddon game's challenge, ``white`` as the procedure decided (rules
        3.ix.1.2-3). Lichess gives both sides the same clock: Black's time, no increment; White's
        bid cannot be set there, and the armageddon intake tells the TDs so."""
        await self.schedule(uow, row, game=ARMAGEDDON, now=now, white=white)

    async def schedule_next(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        *,
        now: dt.datetime,
        announce: Announce | None = None,
    ) -> bool:
        """Ask for the challenge of the match's next game, if it has one to play; with
        ``announce``, whether its link goes in those DMs (:meth:`schedule`)."""
        if not self.enabled or row.state != MatchState.SCHEDULED or row.outcome is not None:
            return False
        played = len(await uow.games.for_match(row.id))
        if played < row.games:
            return await self.schedule(uow, row, game=played + 1, now=now, announce=announce)
        return False

    async def challenges(self, uow: UnitOfWork, match_id: int) -> Sequence[ChallengeRow]:
        return await uow.lichess.challenges(match_id)

    def _expiry(self, row: MatchRow, game: int, now: dt.datetime) -> dt.datetime:
        """After the no-show window of the agreed time (game 1), or of a break from now; an
        armageddon's after ``games.armageddon_challenge_lifetime``."""
        if game == ARMAGEDDON:
            return now + self.config.games.armageddon_challenge_lifetime
        conduct = self.config.rules.conduct
        if game == 1 and row.agreed_time is not None and row.agreed_time > now:
            return row.agreed_time + conduct.no_show_second_alert
        return now + conduct.break_length + conduct.no_show_second_alert

    async def on_deadline(
        self, uow: UnitOfWork, firing: Firing
    ) -> Ask[MadeChallenge | ChallengeFailed] | None:
        """Ask for the challenge the deadline row asks for (an :class:`Ask`: Lichess is asked
        after this firing commits), unless the match no longer needs it."""
        deadline, now = firing.deadline, firing.now
        week, game = int(deadline.payload["week"]), int(deadline.payload["game"])
        attempt = int(deadline.payload.get("attempt", 1))
        announce = Announce.read(deadline.payload.get("announce"))
        found = (
            await uow.matches.with_round(deadline.match_id)
            if deadline.match_id is not None
            else None
        )
        if found is None:
            return None
        row, rnd = found  # the round's number names the challenge: read with it, one query
        if row.black_first is None or row.week != week:
            return None  # an agreement of a week gone by is announced no more
        if not self._wanted(row, game):
            if announce is not None:  # the time was agreed all the same
                await self._announce(uow, announce, row, now=now, line={})
            return None
        expires_at = self._expiry(row, game, now)
        lasting = await _lasting(uow, row, week=week, game=game, expires_at=expires_at)
        if lasting is not None:  # one lasts long enough already (a later time needs a new one)
            if announce is not None:
                key = notice.deadline(NoticeKind.TIME_AGREED, deadline.id, row.id)
                names = {
                    p: await self._username(uow, PlayerId(p))
                    for p in (lasting.white, lasting.black)
                }
                await self._announce_link(uow, announce, row, lasting, names, now=now, key=key)
            return None
        match = to_match(row, round=rnd.number)
        chosen = deadline.payload.get("white")
        white = PlayerId(chosen) if game == ARMAGEDDON and chosen else match.white_in_game(game)
        black = match.opponent_of(white)
        players = await uow.players.get_many((white, black))  # one read for both
        names = {p: players[p].username if p in players else p for p in (white, black)}
        control = self._control(game)
        spec = self._spec(row, match.round, game, (names[white], names[black]), control, expires_at)
        # Lichess is asked outside the database's write lock, which the claim of this row holds
        # (on SQLite a writer waiting on Lichess, through a 429's minute, would hold up every
        # other writer, the game intake too): two firings (an Ask), the runner committing the
        # first, with the next attempt, so a crash while Lichess is asked still makes the
        # challenge; it goes once this one is made. Who gets a later game's link by DM is read
        # now: the answer's firing reads nothing more than it must before its writes.
        by_dm = [white, black]
        if game not in (1, ARMAGEDDON):
            by_dm = [p for p in by_dm if p in players and players[p].game_links_by_dm]
        retry = await self._planned(uow, row, deadline, attempt) or self._retry(
            row, deadline, attempt, now=now
        )
        if retry is not None and retry.id is None:
            await uow.deadlines.add(retry)
        attempt_made = _Attempt(
            row=row,
            deadline=deadline,
            attempt=attempt,
            announce=announce,
            spec=spec,
            control=control,
            white=white,
            black=black,
            names=names,
            by_dm=by_dm,
            retry=None if retry is None else retry.id,
            now=now,
        )
        return Ask(
            question=lambda: self._ask(spec),
            answered=lambda uow, reply: self._answered(uow, attempt_made, reply),
        )

    def _wanted(self, row: MatchRow, game: int) -> bool:
        """The match still needs game ``game``'s challenge: a maker, and the match scheduled
        and undecided (or at its armageddon, for the armageddon game)."""
        wanted_state = MatchState.ARMAGEDDON if game == ARMAGEDDON else MatchState.SCHEDULED
        return (
            self.maker is not None
            and row.state == wanted_state
            and (row.outcome is None or game == ARMAGEDDON)
        )

    def _spec(
        self,
        row: MatchRow,
        round: int,
        game: int,
        names: tuple[str, str],
        control: TimeControl,
        expires_at: dt.datetime,
    ) -> ChallengeSpec:
        """The challenge of game ``game`` between ``names`` (White first), as Lichess is asked."""
        white_name, black_name = names
        return ChallengeSpec(
            white=white_name,
            black=black_name,
            rated=control.rated,
            clock_limit=control.limit_seconds,
            clock_increment=control.increment_seconds,
            variant=control.variant,
            name=challenge_name(
                event=self.config.games.event,
                stage=StageKind(row.stage),
                round=round,
                white=white_name,
                black=black_name,
                game=None if game == ARMAGEDDON else game,
            ),
            expires_at=expires_at,
            starts_at=row.agreed_time if game == 1 else None,
        )

    def _control(self, game: int) -> TimeControl:
        """The game's time control: the rules', or the armageddon's (rules 3.ix)."""
        control = self.config.rules.time_control
        if game != ARMAGEDDON:
            return control
        armageddon = self.config.rules.armageddon
        return dataclasses.replace(
            control,
            limit_seconds=armageddon.black_seconds,
            increment_seconds=armageddon.increment_seconds,
        )

    async def _ask(self, spec: ChallengeSpec) -> MadeChallenge | ChallengeFailed:
        """Lichess's challenge, or why it made none."""
        assert self.maker is not None
        try:
            return await self.maker(spec)
        except ChallengeFailed as e:
            return e

    async def _answered(
        self, uow: UnitOfWork, made: _Attempt, reply: MadeChallenge | ChallengeFailed
    ) -> None:
        """The second firing: the challenge Lichess made stored and its link sent, or the
        failure audited (its next attempt planned by the first); the maker's writes with it."""
        row, now, game = made.row, made.now, int(made.deadline.payload["game"])
        white, black = made.white, made.black
        white_name, black_name = made.names[white], made.names[black]
        for write in reply.writes:
            await write(uow)
        if isinstance(reply, ChallengeFailed):
            await self._failed(uow, row, made.deadline, made.attempt, str(reply), now=now)
            if made.announce is not None:  # the time goes out now; the link follows, or the room
                tongues = await readers(uow, (white, black))
                missing: dict[str, str] = {
                    p: challenge_missing(
                        names=(white_name, black_name),
                        game=None if game == ARMAGEDDON else game,
                        control=made.control,
                        room_url=self.config.room_url(row.id),
                        will_retry=made.retry is not None,
                        words=tongues.of(p),
                    )
                    for p in (white, black)
                }
                await self._announce(uow, made.announce, row, now=now, line=missing)
            return
        if made.retry is not None:  # not needed now, unless it fired already
            await uow.deadlines.cancel_id(made.retry, now)
        spec = made.spec
        made_row = ChallengeRow(
            id=reply.id,
            match_id=row.id,
            week=int(made.deadline.payload["week"]),
            game_number=game,
            armageddon=game == ARMAGEDDON,
            white=white,
            black=black,
            name=spec.name,
            url=reply.url,
            clock_limit=spec.clock_limit,
            clock_increment=spec.clock_increment,
            created_at=now,
            expires_at=spec.expires_at,
        )
        await uow.lichess.add(made_row)
        await uow.audit.record(
            at=now,
            actor="bot",
            action="challenge.created",
            match_id=row.id,
            details={
                "challenge": reply.id,
                "game": game,
                "week": made_row.week,
                "white": white,
            },
        )
        key = notice.deadline(NoticeKind.GAME_LINK, made.deadline.id, row.id)
        if made.announce is not None:
            await self._announce_link(
                uow, made.announce, row, made_row, made.names, now=now, key=key
            )
            return
        # a later game's link is in the room, where the players are by then; by DM too to
        # those who asked for it on their account page
        tongues = await readers(uow, (made_row.white, made_row.black))
        for player, text in self._link_texts(row, made_row, made.names, tongues).items():
            if player in made.by_dm:
                await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)

    def _link_texts(
        self, row: MatchRow, made: ChallengeRow, names: Mapping[str, str], tongues: Readers
    ) -> dict[str, str]:
        """Each player's words on the game of challenge ``made``: its link, colours, time
        control written out, and when it lapses (``names``: the players' usernames)."""
        white, black = PlayerId(made.white), PlayerId(made.black)
        control = dataclasses.replace(
            self.config.rules.time_control,
            limit_seconds=made.clock_limit,
            increment_seconds=made.clock_increment,
        )
        notes = game_link(
            white=white,
            black=black,
            names=(names.get(white, white), names.get(black, black)),
            game=None if made.armageddon else made.game_number,
            url=made.url,
            control=control,
            expires_at=made.expires_at,
            room_url=self.config.room_url(row.id),
            readers=tongues,
        )
        return {str(n.recipient): n.text for n in notes if n.recipient is not None}

    async def _announce(
        self,
        uow: UnitOfWork,
        announce: Announce,
        row: MatchRow,
        *,
        now: dt.datetime,
        line: Mapping[str, str],
    ) -> dict[str, bool]:
        """The agreed time's DM to each player with ``line`` (default: their room's link);
        returns whether each was queued (``False``: it went already)."""
        key = NoticeKey(NoticeKind.TIME_AGREED, announce.event, row.id)
        tongues = await readers(uow, announce.texts)
        queued = {}
        for player, text in announce.texts.items():
            room = room_link_line(self.config.room_url(row.id), tongues.of(player))
            queued[player] = await self.notifier.dm_player(
                uow, now=now, player=player, text=text + line.get(player, room), key=key
            )
        return queued

    async def _announce_link(
        self,
        uow: UnitOfWork,
        announce: Announce,
        row: MatchRow,
        made: ChallengeRow,
        names: Mapping[str, str],
        *,
        now: dt.datetime,
        key: NoticeKey,
    ) -> None:
        """The agreed time's DMs with the game's link; where the time went out already (Lichess
        failed on an earlier attempt), the link alone, with ``key``."""
        links = self._link_texts(row, made, names, await readers(uow, (made.white, made.black)))
        queued = await self._announce(uow, announce, row, now=now, line=links)
        for player, went in queued.items():
            link = links.get(player)
            if not went and link is not None:
                await self.notifier.dm_player(uow, now=now, player=player, text=link, key=key)

    async def _failed(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        deadline: DeadlineRow,
        attempt: int,
        why: str,
        *,
        now: dt.datetime,
    ) -> None:
        log.warning("challenge for match %s failed (attempt %d): %s", row.id, attempt, why)
        await uow.audit.record(
            at=now,
            actor="bot",
            action="challenge.failed",
            match_id=row.id,
            reason=why,
            details={"attempt": attempt, **deadline.payload},
        )
        # the next attempt, if any, was planned before Lichess was asked (on_deadline)

    @staticmethod
    async def _planned(
        uow: UnitOfWork, row: MatchRow, deadline: DeadlineRow, attempt: int
    ) -> DeadlineRow | None:
        """The next attempt already planned (an attempt a crash cut off, asked again)."""
        return next(
            (
                r
                for r in await uow.deadlines.open_for_match(row.id)
                if r.kind == CHALLENGE_DEADLINE
                and r.subject == deadline.subject
                and int(r.payload.get("attempt", 1)) == attempt + 1
            ),
            None,
        )

    @staticmethod
    def _retry(
        row: MatchRow, deadline: DeadlineRow, attempt: int, *, now: dt.datetime
    ) -> DeadlineRow | None:
        """The next attempt's deadline row; None after the last (the players still have the
        room's time control and may challenge by hand)."""
        if attempt >= MAX_ATTEMPTS:
            return None
        return DeadlineRow(
            kind=CHALLENGE_DEADLINE,
            due_at=now + RETRY_AFTER,
            match_id=row.id,
            subject=deadline.subject,
            payload={**deadline.payload, "attempt": attempt + 1},
            created_at=now,
        )

    async def _username(self, uow: UnitOfWork, player: PlayerId) -> str:
        found = await uow.players.get(player)
        return found.username if found is not None else player
