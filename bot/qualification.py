"""The qualification stage on top of storage: entrants, results, standings, rounds (rules 3.v, 8.i).

Standings are recomputed from the stored matches and games every time (rules/swiss/tiebreaks.py); no
total is ever stored.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.config import Config
from bot.td import MatchChanged, OperationError, require_tournament
from bot.weekly import publish_round
from rules.core.colour import Colour
from rules.core.model import Player, PlayerId, normalise_username
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import HALF, Outcome, match_score
from rules.stages.qualification import (
    absent_result,
    bye_result,
    forfeit_results,
    number_of_rounds,
    played_results,
    rank_entrants,
    withdrawn_result,
)
from rules.swiss.dutch import PlayerNumber, SwissPlayer, float_in_round, pair_round
from rules.swiss.qualification_pairing import swiss_players, to_trf
from rules.swiss.results import Entrant, Exit, ExitKind, RoundKind, RoundResult
from rules.swiss.tiebreaks import Standings, compute_standings
from rules.swiss.trf import write_trf
from storage.convert import fraction_to_text, to_game, to_match
from storage.models import ForbiddenPairRow, MatchRow, RoundRow, StageEntrantRow, StageRow
from storage.uow import UnitOfWork

_RULED = {"first_wins": Fraction(1), "second_wins": Fraction(0), "tied": HALF}
COUNTED_ROUND_STATES = ("approved", "published", "complete")


async def qualification_stage(uow: UnitOfWork) -> StageRow:
    tournament = await require_tournament(uow)
    stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
    if stage is None:  # pragma: no cover - create_tournament makes every stage
        raise OperationError("the tournament has no qualification stage")
    return stage


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


async def fix_entrants(
    uow: UnitOfWork, stage: StageRow, ruleset: Ruleset, *, now: dt.datetime, actor: str
) -> tuple[Entrant, ...]:
    """Rank the registered players into pairing numbers once, at the first pairing (rules 3.v.3)."""
    existing = await entrants(uow, stage)
    if existing:
        return existing
    players = [
        Player(id=PlayerId(p.id), username=p.username, seed_rating=p.seed_rating)
        for p in await uow.players.list(status="active")
    ]
    ranked = rank_entrants(players, seeding=ruleset.seeding)
    if len(ranked) < 2:
        raise OperationError(
            f"{len(ranked)} entrant(s) for the qualification: at least 2 are needed to pair"
        )
    for e in ranked:
        await uow.stages.add_entrant(
            StageEntrantRow(
                stage_id=stage.id,
                player_id=e.player,
                number=e.pairing_number,
                seed_rating=e.seed_rating,
            )
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="qualification.entrants",
        details={"entrants": [[e.pairing_number, e.username, e.seed_rating] for e in ranked]},
    )
    return ranked


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
        return all(m.state == "complete" for m in self.matches)


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
    if row.decided_by == "forfeit" and row.outcome in ("first_wins", "second_wins"):
        winner = match.white_first if row.outcome == "first_wins" else match.black_first
        return list(forfeit_results(match, winner=winner, score=score if games else None))
    if row.decided_by in ("forfeit", "td") and row.outcome in _RULED:
        first = _RULED[row.outcome]
        return [
            RoundResult(
                player=p,
                round=number,
                kind=RoundKind.PLAYED,
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
    uow: UnitOfWork, stage: StageRow, ruleset: Ruleset, *, finished_only: bool = True
) -> tuple[tuple[Entrant, ...], list[RoundResult], tuple[Exit, ...], int]:
    """Every entrant's result in every finished round; the number of rounds counted."""
    field = await entrants(uow, stage)
    gone = await exits(uow)
    exit_round = {e.player: e.last_round for e in gone}
    out: list[RoundResult] = []
    counted = 0
    stored_rounds = await rounds(uow, stage)
    await uow.games.preload(m.id for r in stored_rounds for m in r.matches)
    for stored in stored_rounds:
        if stored.row.state not in COUNTED_ROUND_STATES or not stored.is_finished:
            if finished_only:
                break
            continue
        counted += 1
        number = stored.row.number
        seen: set[PlayerId] = set()
        for m in stored.matches:
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


async def standings(uow: UnitOfWork, ruleset: Ruleset) -> Standings:
    stage = await qualification_stage(uow)
    field, res, gone, _ = await results(uow, stage, ruleset)
    if not field:
        raise OperationError("the qualification has no entrants yet: pair round 1 first")
    return compute_standings(field, res, exits=gone)


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


async def _pairing_input(
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
        raise OperationError("no qualification round has been paired yet: `acwc round pair`")
    chosen = (
        stored[-1] if number is None else next((r for r in stored if r.row.number == number), None)
    )
    if chosen is None:
        raise OperationError(f"there is no qualification round {number}")
    field, players, total, _ = await _pairing_input(uow, stage, config, chosen.row.number)
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


async def propose_round(
    uow: UnitOfWork,
    config: Config,
    *,
    now: dt.datetime,
    actor: str,
    forbid: Sequence[tuple[str, str]] = (),
    swap: Sequence[tuple[str, str]] = (),
) -> RoundView:
    """Pair the next qualification round by the Dutch system and keep it as a proposal.

    A proposal already standing is re-paired (with the new ``forbid`` pairs, stage-wide, and
    ``swap`` pairs: each swapped player's proposed pairing is forbidden for this round, so the
    engine finds the best pairing without it; nothing is ever edited by hand). Refuses while the
    previous round has unfinished matches (rules 4.5; a TD adjudicates them first).
    """
    stage = await qualification_stage(uow)
    ruleset = config.rules
    if stage.state == "complete":
        raise OperationError("the qualification is complete")
    field = await fix_entrants(uow, stage, ruleset, now=now, actor=actor)
    stored = await rounds(uow, stage)
    proposal = stored[-1] if stored and stored[-1].row.state == "proposed" else None
    if proposal is None and stored and not stored[-1].is_finished:
        unfinished = [m.id for m in stored[-1].matches if m.state != "complete"]
        raise OperationError(
            f"round {stored[-1].row.number} has unfinished matches {unfinished}: they must "
            "finish or be adjudicated (`acwc match adjudicate`) before the next pairing"
        )
    number = proposal.row.number if proposal else len(stored) + 1
    total = number_of_rounds(len(field))
    if number > total:
        raise OperationError(f"all {total} qualification rounds have been paired")
    ids = {e.player for e in field}
    for a, b in [*forbid, *swap]:
        for name in (a, b):
            if normalise_username(name) not in ids:
                raise OperationError(f"{name} is not a qualification entrant")
    for a, b in forbid:
        await uow.stages.add_forbidden(
            ForbiddenPairRow(
                stage_id=stage.id,
                round=None,
                first=normalise_username(a),
                second=normalise_username(b),
                created_by=actor,
                created_at=now,
                reason="forbid",
            )
        )
    if swap:
        if proposal is None:
            raise OperationError("--swap works on a proposed round: pair it first")
        for a, b in swap:
            for name in (a, b):
                pid = normalise_username(name)
                for m in proposal.matches:
                    if m.black_first is not None and pid in (m.white_first, m.black_first):
                        await uow.stages.add_forbidden(
                            ForbiddenPairRow(
                                stage_id=stage.id,
                                round=number,
                                first=m.white_first,
                                second=m.black_first,
                                created_by=actor,
                                created_at=now,
                                reason=f"swap {a} {b}",
                            )
                        )
    field, players, total, forbidden = await _pairing_input(uow, stage, config, number)
    pairing = pair_round(players, round_number=number, total_rounds=total, forbidden=forbidden)
    if proposal is not None:
        for m in proposal.matches:
            await uow.session.delete(m)
        await uow.session.flush()
        round_row = proposal.row
    else:
        round_row = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=number, state="proposed")
        )
    if stage.state == "pending":
        stage.state, stage.started_at = "active", now
    by_number = {e.pairing_number: e.player for e in field}
    fmt = ruleset.formats.qualification
    for board, pair in enumerate(pairing.boards, 1):
        await uow.matches.add(
            MatchRow(
                round_id=round_row.id,
                stage=StageKind.QUALIFICATION.value,
                board=board,
                white_first=by_number[pair.white],
                black_first=by_number[pair.black],
                games=fmt.games,
                clinch_at=fraction_to_text(fmt.clinch_at),
                tiebreak=fmt.tiebreak.value,
                max_weeks=fmt.max_weeks,
                state="proposed",
            )
        )
    if pairing.bye is not None:
        await uow.matches.add(
            MatchRow(
                round_id=round_row.id,
                stage=StageKind.QUALIFICATION.value,
                board=len(pairing.boards) + 1,
                white_first=by_number[pairing.bye],
                black_first=None,
                games=0,
                clinch_at=None,
                tiebreak=fmt.tiebreak.value,
                state="proposed",
                outcome="first_wins",
                decided_by="bye",
            )
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="round.propose",
        details={
            "round": number,
            "boards": [[by_number[p.white], by_number[p.black]] for p in pairing.boards],
            "bye": None if pairing.bye is None else by_number[pairing.bye],
            "forbid": [list(p) for p in forbid],
            "swap": [list(p) for p in swap],
        },
    )
    await uow.session.flush()
    return await round_view(uow, config, number)


async def approve_proposed(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> RoundRow:
    """A TD fixes the proposed round; it is published into its match week (rules 3.v.6, 4.3-4.4)."""
    stage = await qualification_stage(uow)
    stored = await rounds(uow, stage)
    if not stored or stored[-1].row.state != "proposed":
        raise OperationError("there is no proposed round to approve: `acwc round pair` first")
    row = stored[-1].row
    row.state, row.approved_by, row.approved_at = "approved", actor, now
    for m in stored[-1].matches:
        if m.black_first is None:
            m.state, m.completed_at = "complete", now
    await uow.audit.record(
        at=now, actor=actor, action="round.approve", details={"round": row.number}
    )
    await publish_round(uow, config, row, now=now, actor=actor)
    return row


async def approve_round(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> RoundView:
    """:func:`approve_proposed`, then the published round's boards with scores and colours."""
    row = await approve_proposed(uow, config, now=now, actor=actor)
    return await round_view(uow, config, row.number)


async def adjudicate(
    uow: UnitOfWork,
    match_id: int,
    *,
    winner: str | None,
    reason: str,
    now: dt.datetime,
    actor: str,
    on_change: MatchChanged | None = None,
) -> MatchRow:
    """A TD decides an unfinished match (rules 1.3, 4.5): ``winner`` or, with None, a tie.

    ``on_change`` runs the features' match hooks (the result notices) in the same transaction.
    """
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    if row.black_first is None:
        raise OperationError(f"match {match_id} is a bye")
    if winner is None:
        outcome = "tied"
    else:
        pid = normalise_username(winner)
        if pid not in (row.white_first, row.black_first):
            raise OperationError(f"{winner} does not play match {match_id}")
        outcome = "first_wins" if pid == row.white_first else "second_wins"
    before = {"state": row.state, "outcome": row.outcome, "decided_by": row.decided_by}
    row.state, row.outcome, row.decided_by, row.completed_at = "complete", outcome, "td", now
    await uow.audit.record(
        at=now,
        actor=actor,
        action="match.adjudicate",
        reason=reason,
        match_id=match_id,
        details={"before": before, "outcome": outcome},
    )
    await uow.session.flush()
    if on_change is not None:
        await on_change(uow, match_id, Outcome(outcome))
    return row


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
