"""Matches and rounds as the pages and the desk show them: each match's line with its score and
games, the published rounds, a player's matches, the knockout's matches.

Scores are recomputed from the counted games every time (:mod:`bot.views.scores`), never read
from a stored total. Nothing here writes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.views.bracket import KNOCKOUT, VOID, armageddon_view
from bot.views.scores import ScoredMatch, scored
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import format_points
from rules.core.states import DecidedBy, MatchState, RoundState
from rules.core.words import ENGLISH, Words
from rules.stages.formats import stage_name
from storage.models import GameRow, MatchRow, PlayerRow, RoundRow, StageRow
from storage.uow import UnitOfWork

STAGE_LABELS = {kind.value: stage_name(kind) for kind in StageKind}
"""Each stage kind's name as the TDs' pages show it (from the stage formats)."""


def stage_label(kind: str, words: Words = ENGLISH) -> str:
    """Stage ``kind``'s name in the reader's ``words`` (a kind no longer known: as stored)."""
    try:
        return stage_name(kind, words)
    except ValueError:
        return kind


def clock_text(seconds: int | None) -> str | None:
    """A clock time as players write bids: 3:30."""
    return None if seconds is None else f"{seconds // 60}:{seconds % 60:02d}"


def _decided(outcome: str, first: str, second: str, words: Words) -> str:
    if outcome == "first_wins":
        return words.gettext("won by %(player)s") % {"player": first}
    if outcome == "second_wins":
        return words.gettext("won by %(player)s") % {"player": second}
    if outcome == "tied":
        return words.gettext("tied")
    if outcome == "repeat":
        return words.gettext("tied: replayed next week")
    if outcome == "armageddon":
        return words.gettext("tied: armageddon decides")
    return outcome.replace("_", " ")


def outcome_label(
    state: ScoredMatch, first: str, second: str | None, words: Words = ENGLISH
) -> str | None:
    """How a match was decided, in words: "won by Bob (by forfeit; rules 8.i.2: ...)", "ruled
    tied by the TDs (no games played)"... None while it is undecided."""
    row = state.row
    if not row.outcome:
        return None
    label = _decided(row.outcome, first, second or "", words)
    played = state.score.games_played if state.score else 0
    tied = row.outcome == "tied"
    if row.decided_by is DecidedBy.TD:
        label = (
            words.gettext("ruled tied by the TDs")
            if tied
            else words.gettext("%(outcome)s (TD decision)") % {"outcome": label}
        )
    elif row.decided_by is DecidedBy.FORFEIT:
        label = (
            words.gettext("tied without play")
            if tied
            else words.gettext("%(outcome)s (by forfeit)") % {"outcome": label}
        )
    elif row.decided_by is DecidedBy.ARMAGEDDON:
        label = words.gettext("%(outcome)s in the armageddon") % {"outcome": label}
    if state.engine_adjudicated:
        label += words.gettext("; rules 8.i.2: every finished game counts for the opponent")
    elif row.decided_by in (DecidedBy.TD, DecidedBy.FORFEIT) and not played:
        label += " " + words.gettext("(no games played)")
    return label


def lichess_game_url(game_id: str) -> str | None:
    """Games entered by a TD by hand have no Lichess page."""
    if game_id.startswith("td-"):
        return None
    return f"https://lichess.org/{game_id}"


@dataclass(frozen=True, slots=True)
class GameLine:
    number: int
    id: str
    url: str | None
    white: str
    black: str
    result: str  # "1-0", "0-1", "½-½", "*"
    status: str
    counted: bool
    refusal: str | None


@dataclass(frozen=True, slots=True)
class MatchLine:
    id: int
    stage: str
    stage_label: str
    round_number: int
    board: int
    first: str  # usernames
    second: str | None
    first_id: str
    second_id: str | None
    score_first: str
    score_second: str
    games_played: int
    games: int
    state: str
    outcome: str | None
    outcome_label: str | None
    agreed_time: dt.datetime | None
    games_list: tuple[GameLine, ...]
    week_start: dt.datetime | None
    week_end: dt.datetime | None
    week: int = 1
    """A knockout match tied after its week is replayed (rules 3.vii): week 2, 3..."""
    armageddon: Mapping[str, Any] | None = None
    """The public armageddon (rules 3.ix): bids once sealed, colours, the game, the winner."""

    @property
    def is_bye(self) -> bool:
        return self.second is None

    def has(self, player_id: str) -> bool:
        return player_id in (self.first_id, self.second_id)

    def opponent_of(self, player_id: str) -> str | None:
        return self.second if player_id == self.first_id else self.first


def game_result(row: GameRow) -> str:
    if not row.status.is_finished:
        return "*"
    if row.winner == "w":
        return "1-0"
    if row.winner == "b":
        return "0-1"
    return "½-½"


PUBLIC_ROUND_STATES = ("published", "complete")


async def public_matches(uow: UnitOfWork, stage: str) -> list[MatchRow]:
    """The stage's matches whose pairings are public (their round was published)."""
    out = []
    for m in await uow.matches.all():
        if m.stage != stage:
            continue
        rnd = await uow.tournaments.round(m.round_id)
        if rnd is not None and rnd.state in PUBLIC_ROUND_STATES:
            out.append(m)
    return out


async def _names(uow: UnitOfWork) -> dict[str, str]:
    return {p.id: p.username for p in await uow.players.list()}


async def match_line(
    uow: UnitOfWork,
    row: MatchRow,
    *,
    names: dict[str, str] | None = None,
    rnd: RoundRow | None = None,
    all_games: bool = False,
    words: Words = ENGLISH,
) -> MatchLine:
    names = names if names is not None else await _names(uow)
    rnd = rnd or await uow.tournaments.round(row.round_id)
    state = await scored(uow, row)
    games = await uow.games.for_match(row.id, counted_only=not all_games)
    first = names.get(row.white_first, row.white_first)
    second = None if row.black_first is None else names.get(row.black_first, row.black_first)
    numbered: list[GameLine] = []
    counted_number = 0
    for g in games:
        if g.counted:
            counted_number += 1
        numbered.append(
            GameLine(
                number=counted_number if g.counted else 0,
                id=g.id,
                url=lichess_game_url(g.id),
                white=names.get(g.white, g.white),
                black=names.get(g.black, g.black),
                result=game_result(g),
                status=g.status,
                counted=g.counted,
                refusal=g.refusal,
            )
        )
    score = state.score
    label = outcome_label(state, first, second, words)
    return MatchLine(
        id=row.id,
        stage=row.stage,
        stage_label=stage_label(row.stage, words),
        round_number=rnd.number if rnd else 0,
        board=row.board,
        first=first,
        second=second,
        first_id=row.white_first,
        second_id=row.black_first,
        score_first=format_points(score.first) if score else "",
        score_second=format_points(score.second) if score else "",
        games_played=score.games_played if score else 0,
        games=row.games,
        state=row.state,
        outcome=row.outcome,
        outcome_label=label,
        agreed_time=row.agreed_time,
        games_list=tuple(numbered),
        week_start=None if rnd is None else rnd.week_start,
        week_end=None if rnd is None else rnd.week_end,
        week=row.week,
    )


async def next_game_links(
    uow: UnitOfWork, matches: Sequence[MatchLine], *, now: dt.datetime
) -> dict[int, str]:
    """The link of the bot's challenge of each match's next game, while it lasts (the room
    shows the same one), in one query; a match without one is left out."""
    found = await uow.lichess.challenges_of(m.id for m in matches)
    links: dict[int, str] = {}
    for m in matches:
        wanted = m.games_played + 1
        for c in reversed(found.get(m.id, [])):
            if c.week == m.week and c.game_number == wanted and c.expires_at > now:
                links[m.id] = c.url
                break
    return links


@dataclass(frozen=True, slots=True)
class RoundView:
    stage: str
    stage_label: str
    number: int
    state: str
    week_start: dt.datetime | None
    week_end: dt.datetime | None
    matches: tuple[MatchLine, ...]


async def _stages(uow: UnitOfWork) -> Sequence[StageRow]:
    tournament = await uow.tournaments.current()
    if tournament is None:
        return ()
    return await uow.tournaments.stages(tournament.id)


async def published_rounds(uow: UnitOfWork, *, words: Words = ENGLISH) -> list[RoundView]:
    """Every published round of every stage, newest first, in the reader's ``words``."""
    names = await _names(uow)
    shown: list[tuple[StageRow, RoundRow, Sequence[MatchRow]]] = []
    for stage in await _stages(uow):
        for rnd in await uow.tournaments.rounds(stage.id):
            if rnd.state in (RoundState.PUBLISHED, RoundState.COMPLETE):
                shown.append((stage, rnd, await uow.matches.for_round(rnd.id)))
    out: list[RoundView] = []
    for stage, rnd, rows in shown:
        await asyncio.sleep(0)  # a round at a time: the event loop serves others in between
        # a round's games in one query, not two a match (a crowd reads this page); a round at
        # a time, so that turning them into objects never holds the loop for the whole season
        await uow.games.preload(m.id for m in rows)
        lines = [await match_line(uow, m, names=names, rnd=rnd, words=words) for m in rows]
        out.append(
            RoundView(
                stage=stage.kind,
                stage_label=stage_label(stage.kind, words),
                number=rnd.number,
                state=rnd.state,
                week_start=rnd.week_start,
                week_end=rnd.week_end,
                matches=tuple(lines),
            )
        )
    out.sort(key=lambda r: (r.week_start or dt.datetime.min.replace(tzinfo=dt.UTC), r.number))
    out.reverse()
    return out


async def player_matches(
    uow: UnitOfWork, player_id: str, *, words: Words = ENGLISH
) -> list[MatchLine]:
    names = await _names(uow)
    lines = []
    for m in await uow.matches.for_player(player_id):
        rnd = await uow.tournaments.round(m.round_id)
        if rnd is None or rnd.state not in (RoundState.PUBLISHED, RoundState.COMPLETE):
            continue  # pairings not yet public
        lines.append(await match_line(uow, m, names=names, rnd=rnd, words=words))
    lines.sort(key=lambda m: (m.week_start or dt.datetime.min.replace(tzinfo=dt.UTC), m.id))
    return lines


OPEN_STATES = (MatchState.SCHEDULED, MatchState.REPEAT, MatchState.ARMAGEDDON)


async def current_match(uow: UnitOfWork, player_id: str) -> MatchRow | None:
    """The player's open match in a published round (the newest), else their latest one."""
    latest: MatchRow | None = None
    for m in reversed(await uow.matches.for_player(player_id)):
        rnd = await uow.tournaments.round(m.round_id)
        if (
            rnd is None
            or rnd.state not in (RoundState.PUBLISHED, RoundState.COMPLETE)
            or m.black_first is None
        ):
            continue
        if m.state in OPEN_STATES:
            return m
        latest = latest or m
    return latest


# --- the knockout --------------------------------------------------------------------------


async def knockout(
    uow: UnitOfWork, ruleset: Ruleset, *, words: Words = ENGLISH
) -> dict[str, list[MatchLine]]:
    """Semifinals, final and the match for third place, as stored: every week of a repeated
    match, and the armageddon that decided a tie as the public may see it."""
    names = await _names(uow)
    out: dict[str, list[MatchLine]] = {}
    for kind in KNOCKOUT:
        lines = []
        for m in await public_matches(uow, kind.value):
            if m.state == VOID:
                continue
            line = await match_line(uow, m, names=names, words=words)
            arm = await armageddon_view(uow, m.id, ruleset)
            if arm is not None:
                arm = dict(arm) | {
                    "white_name": names.get(arm["white"] or "", arm["white"]),
                    "black_name": names.get(arm["black"] or "", arm["black"]),
                    "winner_name": names.get(arm["winner"] or "", arm["winner"]),
                    "bids_named": None
                    if arm["bids"] is None
                    else [
                        (names.get(p, p), clock_text(seconds))
                        for p, seconds in zip(arm["players"], arm["bids"], strict=True)
                    ],
                    "white_clock": clock_text(arm["white_seconds"]),
                    "black_clock": clock_text(arm["black_seconds"]),
                    "game_url": None if not arm["game"] else lichess_game_url(arm["game"]),
                }
                line = dataclasses.replace(line, armageddon=arm)
            lines.append(line)
        out[kind.value] = sorted(lines, key=lambda m: (m.board, m.week, m.id))
    return out


async def player(uow: UnitOfWork, player_id: str) -> PlayerRow | None:
    if not player_id or len(player_id) > 30:
        return None
    return await uow.players.get(player_id.lower())
