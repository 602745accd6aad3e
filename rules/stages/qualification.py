"""The qualification stage, apart from pairing: entrants, rounds, results, exits, qualifiers.

Rules 3.v (format), 3.iii-iv (the seeded players who skip it) and 8.i (withdrawal and
disqualification). The standings themselves are in :mod:`rules.swiss.tiebreaks`; the per-round
result value is :class:`rules.swiss.results.RoundResult`, re-exported here.

Decisions documented once:

* **Entrants** (rules 3.v.1, 3.v.3) are the registered, eligible players except the title holder
  and the runner-up named in :class:`~rules.core.ruleset.Seeding` (compared case-insensitively).
  They are ranked by seeding rating, highest first; equal ratings by Lichess user id (lower-case
  username), ascending; players without a seeding rating come last, by user id. Pairing numbers
  are 1..n in that order.
* **Qualifiers** (rules 3.v.4): ``Stages.qualifiers`` plus one for each seeded slot (title
  holder, runner-up) whose player does not take part; an unfilled slot counts as absent. So with
  the 2021 values 10, 11 or 12 qualify, which fills the two candidate pools of six
  (rules 3.vi.2). A withdrawn or disqualified player never qualifies: the next player in the
  standings takes the place.
* **Withdrawal or disqualification** (rules 8.i.1): the player is not paired again; an
  unfinished match of theirs is a forfeit win for the opponent (0 game points to both: the
  partial games do not count); every later round of theirs is WITHDRAWN.
* **Engine disqualification** (rules 8.i.2): every finished match of theirs with games in it
  becomes a forfeit, adjudicated (``Adjudication.ENGINE_MARK``): the opponent gets the match
  point and, since each game is adjudicated in the opponent's favour, one game point per game
  played; the cheater gets nothing. For tie-breaks these are forfeits under FIDE C.07 Art. 16
  (16.2.2 for the opponent, 16.2.4 for the cheater), not played games: the opponent's Buchholz
  gets a dummy instead of the cheater's score, capped at the cheater's adjusted score in the
  2026 text. A match the cheater won by forfeit, or a TD-ruled draw with no games, has no
  finished game and is left as it is. A booster mark (or any other disqualification) does not
  reverse finished matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import Game, Match, Player, PlayerId, normalise_username
from rules.core.ruleset import Seeding, Stages
from rules.core.scoring import MatchScore, Outcome, match_outcome, match_points, match_score
from rules.swiss.results import (
    Adjudication,
    Entrant,
    Exit,
    ExitKind,
    QualificationError,
    QualificationErrorReason,
    ResultKind,
    RoundResult,
)
from rules.swiss.tiebreaks import C07Edition, PlayerStatus, Standings, compute_standings

__all__ = [
    "Adjudication",
    "Entrant",
    "Exit",
    "ExitKind",
    "ExitReport",
    "QualificationError",
    "QualificationErrorReason",
    "ResultKind",
    "RoundResult",
    "absent_result",
    "adjust_for_exit",
    "bye_result",
    "engine_adjudicated",
    "exit_report",
    "forfeit_results",
    "number_of_rounds",
    "played_results",
    "qualifier_count",
    "qualifiers",
    "rank_entrants",
    "withdrawn_result",
]

ZERO = Fraction(0)
HALF = Fraction(1, 2)
ONE = Fraction(1)


def number_of_rounds(entrants: int) -> int:
    """Rules 3.v.2: floor(log2 n) + 2 rounds, so 32-63 players play 7 and 64-127 play 8.

    Integer arithmetic: floor(log2 n) is ``n.bit_length() - 1``. Raises
    :class:`QualificationError` for fewer than two entrants.
    """
    if entrants < 2:
        raise QualificationError(
            QualificationErrorReason.TOO_FEW_ENTRANTS,
            f"A Swiss needs at least 2 entrants; there are {entrants}.",
        )
    return entrants.bit_length() - 1 + 2


def _seeded_ids(seeding: Seeding) -> tuple[PlayerId | None, PlayerId | None]:
    return (
        None if seeding.title_holder is None else normalise_username(seeding.title_holder),
        None if seeding.runner_up is None else normalise_username(seeding.runner_up),
    )


def _entrant_key(player: Player) -> tuple[bool, int, PlayerId]:
    rating = player.seed_rating
    return (rating is None, -(rating or 0), player.id)


def rank_entrants(
    registered: Iterable[Player],
    *,
    seeding: Seeding,
    ineligible: Set[PlayerId] = frozenset(),
) -> tuple[Entrant, ...]:
    """The qualification entrants with their pairing numbers (rules 3.v.1, 3.v.3).

    Leaves out ``ineligible`` players and the seeded title holder and runner-up. Raises
    :class:`QualificationError` if a player is registered twice.
    """
    seeded = {p for p in _seeded_ids(seeding) if p is not None}
    seen: set[PlayerId] = set()
    chosen: list[Player] = []
    for player in registered:
        pid = normalise_username(player.id)
        if pid in seen:
            raise QualificationError(
                QualificationErrorReason.DUPLICATE_PLAYER, f"{player.username} registered twice."
            )
        seen.add(pid)
        if pid in seeded or pid in ineligible:
            continue
        chosen.append(player)
    chosen.sort(key=_entrant_key)
    return tuple(
        Entrant(
            pairing_number=number,
            player=normalise_username(p.id),
            username=p.username,
            seed_rating=p.seed_rating,
        )
        for number, p in enumerate(chosen, start=1)
    )


def qualifier_count(
    *, stages: Stages, seeding: Seeding, seeded_participants: Iterable[str] = ()
) -> int:
    """How many qualify (rules 3.v.4): ``stages.qualifiers`` + one per absent seeded player.

    ``seeded_participants`` are the usernames of the seeded players who take part. Raises
    :class:`QualificationError` if one of them is not a seeded player.
    """
    slots = _seeded_ids(seeding)
    playing: set[PlayerId] = set()
    for name in seeded_participants:
        pid = normalise_username(name)
        if pid not in slots:
            raise QualificationError(
                QualificationErrorReason.NOT_SEEDED,
                f"{name} is neither the title holder nor the runner-up.",
            )
        playing.add(pid)
    absent = sum(1 for slot in slots if slot is None or slot not in playing)
    return stages.qualifiers + absent


def qualifiers(standings: Standings, *, count: int) -> tuple[PlayerId, ...]:
    """The ``count`` best-placed players still in the event, in standings order (rules 3.v.4).

    Withdrawn and disqualified players are skipped. Fewer are returned if fewer remain.
    """
    active = (row.player for row in standings.rows if row.status is PlayerStatus.ACTIVE)
    return tuple(player for _, player in zip(range(count), active, strict=False))


def played_results(match: Match, games: Iterable[Game]) -> tuple[RoundResult, RoundResult]:
    """The two players' results of a finished match (rules 3.v.1), ``white_first``'s first.

    Match points come from :func:`rules.core.scoring.match_outcome` (the players stop at the
    clinch). Raises :class:`QualificationError`: ``MATCH_NOT_FINISHED`` while it is in progress,
    ``INVALID_RESULT`` for a game between other players or a format whose ties do not stand.
    """
    try:
        score = match_score(match, games)
        outcome = match_outcome(score, match.format)
    except ValueError as e:
        raise QualificationError(QualificationErrorReason.INVALID_RESULT, str(e)) from e
    if outcome is Outcome.IN_PROGRESS:
        raise QualificationError(
            QualificationErrorReason.MATCH_NOT_FINISHED,
            f"Match {match.id} is still in progress ({score}).",
        )
    if outcome not in (Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.TIED):
        raise QualificationError(
            QualificationErrorReason.INVALID_RESULT,
            f"Match {match.id} needs a {outcome.value}; a Swiss round cannot end that way.",
        )
    white, black = match.white_first, match.black_first
    return (
        RoundResult(
            player=white,
            round=match.round,
            kind=ResultKind.PLAYED,
            match_points=match_points(outcome, first=True),
            opponent=black,
            colour=Colour.WHITE,
            game_points=score.first,
            games=score.games_played,
        ),
        RoundResult(
            player=black,
            round=match.round,
            kind=ResultKind.PLAYED,
            match_points=match_points(outcome, first=False),
            opponent=white,
            colour=Colour.BLACK,
            game_points=score.second,
            games=score.games_played,
        ),
    )


def bye_result(player: PlayerId, round: int, *, stages: Stages) -> RoundResult:
    """A pairing-allocated bye: a match win when ``stages.bye_is_match_win``, else a tie (½)."""
    points = ONE if stages.bye_is_match_win else HALF
    return RoundResult(player=player, round=round, kind=ResultKind.BYE, match_points=points)


def absent_result(player: PlayerId, round: int, *, half_point: bool = False) -> RoundResult:
    """A round the player was not paired in while still in the event: a zero-point bye, or a
    half-point bye where the TDs grant one (rules 5.10)."""
    points = HALF if half_point else ZERO
    return RoundResult(player=player, round=round, kind=ResultKind.ABSENT, match_points=points)


def withdrawn_result(player: PlayerId, round: int) -> RoundResult:
    """A round after the player withdrew or was disqualified (rules 8.i.1)."""
    return RoundResult(player=player, round=round, kind=ResultKind.WITHDRAWN, match_points=ZERO)


def forfeit_results(
    match: Match,
    *,
    winner: PlayerId,
    score: MatchScore | None = None,
    adjudication: Adjudication = Adjudication.NONE,
) -> tuple[RoundResult, RoundResult]:
    """``(winner's, loser's)`` results of a match decided without being played out.

    Rules 6.3-6.4 (no-show, not returning), 8.i.1 (unfinished at an exit). ``score`` gives the
    games played before the forfeit, shown as game points; with games played the colours stay
    on the results. Raises :class:`QualificationError` if ``winner`` is not in the match.
    """
    if not match.has_player(winner):
        raise QualificationError(
            QualificationErrorReason.INVALID_RESULT,
            f"{winner} does not play match {match.id}, so cannot win it by forfeit.",
        )
    loser = match.opponent_of(winner)
    games = 0 if score is None else score.games_played

    def colour(player: PlayerId) -> Colour | None:
        if not games:
            return None
        return Colour.WHITE if player == match.white_first else Colour.BLACK

    def points(player: PlayerId) -> Fraction:
        return ZERO if score is None else score.of(match, player)

    return (
        RoundResult(
            player=winner,
            round=match.round,
            kind=ResultKind.FORFEIT_WIN,
            match_points=ONE,
            opponent=loser,
            colour=colour(winner),
            game_points=points(winner),
            games=games,
            adjudication=adjudication,
        ),
        RoundResult(
            player=loser,
            round=match.round,
            kind=ResultKind.FORFEIT_LOSS,
            match_points=ZERO,
            opponent=winner,
            colour=colour(loser),
            game_points=points(loser),
            games=games,
            adjudication=adjudication,
        ),
    )


def engine_adjudicated(mine: RoundResult, theirs: RoundResult) -> tuple[RoundResult, RoundResult]:
    """Rules 8.i.2: the cheater's finished match becomes the opponent's, game by game:
    ``(mine, theirs)`` made ``(lost, won)``, every game played a game point of the opponent."""
    return (
        RoundResult(
            player=mine.player,
            round=mine.round,
            kind=ResultKind.FORFEIT_LOSS,
            match_points=ZERO,
            opponent=theirs.player,
            colour=mine.colour,
            game_points=ZERO,
            games=mine.games,
            adjudication=Adjudication.ENGINE_MARK,
        ),
        RoundResult(
            player=theirs.player,
            round=theirs.round,
            kind=ResultKind.FORFEIT_WIN,
            match_points=ONE,
            opponent=mine.player,
            colour=theirs.colour,
            game_points=Fraction(mine.games),
            games=mine.games,
            adjudication=Adjudication.ENGINE_MARK,
        ),
    )


def _result_order(result: RoundResult) -> tuple[int, PlayerId]:
    return (result.round, result.player)


def adjust_for_exit(  # noqa: C901 (rules 8.i's cases of a result after an exit)
    results: Iterable[RoundResult], exit: Exit, *, unfinished: Match | None = None
) -> tuple[RoundResult, ...]:
    """The stored results as rules 8.i makes them once ``exit.player`` leaves.

    ``unfinished`` is the player's match in ``exit.last_round`` if it had not finished; it goes
    to the opponent. An engine disqualification also reverses every finished match (see the
    module notes). Every round after ``exit.last_round`` already in ``results`` gets a WITHDRAWN
    result for the player. Returns all results, sorted by round then player; the input is not
    changed. Raises :class:`QualificationError` (``INVALID_EXIT``) when the exit does not fit the
    results: a non-withdrawn result after the last round, an ``unfinished`` match that is not
    the player's, is in another round or already has a result.
    """
    player = exit.player
    stored: dict[tuple[PlayerId, int], RoundResult] = {}
    for result in results:
        key = (result.player, result.round)
        if key in stored:
            raise QualificationError(
                QualificationErrorReason.DUPLICATE_RESULT,
                f"{result.player} has two results in round {result.round}.",
            )
        stored[key] = result
    last_stored_round = max((rnd for _, rnd in stored), default=0)
    for (who, rnd), result in sorted(stored.items()):
        if who == player and rnd > exit.last_round and result.kind is not ResultKind.WITHDRAWN:
            raise QualificationError(
                QualificationErrorReason.INVALID_EXIT,
                f"{player} left after round {exit.last_round} but has a "
                f"{result.kind.value} result in round {rnd}.",
            )

    adjusted = dict(stored)
    if unfinished is not None:
        if not unfinished.has_player(player) or unfinished.round != exit.last_round:
            raise QualificationError(
                QualificationErrorReason.INVALID_EXIT,
                f"Match {unfinished.id} is not {player}'s match of round {exit.last_round}.",
            )
        opponent = unfinished.opponent_of(player)
        if (player, unfinished.round) in stored or (opponent, unfinished.round) in stored:
            raise QualificationError(
                QualificationErrorReason.INVALID_EXIT,
                f"Match {unfinished.id} already has a result, so it is not unfinished.",
            )
        won, lost = forfeit_results(
            unfinished, winner=opponent, adjudication=Adjudication.UNFINISHED_AT_EXIT
        )
        adjusted[(opponent, unfinished.round)] = won
        adjusted[(player, unfinished.round)] = lost

    if exit.kind.reverses_finished_matches:
        for (who, rnd), mine in sorted(stored.items()):
            if who != player or rnd > exit.last_round or mine.opponent is None:
                continue
            if mine.kind is not ResultKind.PLAYED or mine.games == 0:
                continue
            theirs = stored.get((mine.opponent, rnd))
            if theirs is None:
                raise QualificationError(
                    QualificationErrorReason.MISSING_RESULT,
                    f"{mine.opponent} has no result in round {rnd}.",
                )
            lost, won = engine_adjudicated(mine, theirs)
            adjusted[(player, rnd)] = lost
            adjusted[(theirs.player, rnd)] = won

    for rnd in range(exit.last_round + 1, last_stored_round + 1):
        adjusted.setdefault((player, rnd), withdrawn_result(player, rnd))
    return tuple(sorted(adjusted.values(), key=_result_order))


@dataclass(frozen=True, slots=True)
class ExitReport:
    """What an exit changes, for the TD to confirm: both tables and every changed result.

    ``changed`` pairs each old result (``None`` where there was none) with its replacement.
    """

    exit: Exit
    results: tuple[RoundResult, ...]
    changed: tuple[tuple[RoundResult | None, RoundResult], ...]
    before: Standings
    after: Standings


def exit_report(
    entrants: Iterable[Entrant],
    results: Iterable[RoundResult],
    exit: Exit,
    *,
    unfinished: Match | None = None,
    earlier_exits: Iterable[Exit] = (),
    edition: C07Edition = C07Edition.E2026,
) -> ExitReport:
    """Apply :func:`adjust_for_exit` and rank the event before and after it.

    ``earlier_exits`` are exits already applied to ``results``. The "before" table is the stored
    results as they are, the "after" table the adjusted ones; each ranks the rounds in which
    every entrant has a result (an unfinished match leaves its round out of "before"). Raises
    what :func:`adjust_for_exit` and :func:`rules.swiss.tiebreaks.compute_standings` raise.
    """
    entrant_list = tuple(entrants)
    stored = tuple(results)
    earlier = tuple(earlier_exits)
    if any(e.player == exit.player for e in earlier):
        raise QualificationError(
            QualificationErrorReason.INVALID_EXIT, f"{exit.player} has already left."
        )
    adjusted = adjust_for_exit(stored, exit, unfinished=unfinished)
    players = {e.player for e in entrant_list}
    complete_before = _complete_rounds(stored, players)
    complete_after = _complete_rounds(adjusted, players)
    before = compute_standings(
        entrant_list,
        (r for r in stored if r.round <= complete_before),
        exits=earlier,
        edition=edition,
    )
    after = compute_standings(
        entrant_list,
        (r for r in adjusted if r.round <= complete_after),
        exits=(*earlier, exit),
        edition=edition,
    )
    old = {(r.player, r.round): r for r in stored}
    changed = tuple(
        (old.get((r.player, r.round)), r) for r in adjusted if old.get((r.player, r.round)) != r
    )
    return ExitReport(exit=exit, results=adjusted, changed=changed, before=before, after=after)


def _complete_rounds(results: Iterable[RoundResult], players: Set[PlayerId]) -> int:
    """The highest k such that every player has a result in each round 1..k."""
    seen: dict[int, set[PlayerId]] = {}
    for result in results:
        seen.setdefault(result.round, set()).add(result.player)
    k = 0
    while seen.get(k + 1, set()) >= players and players:
        k += 1
    return k
