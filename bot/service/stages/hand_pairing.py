"""A qualification round paired by the TDs (rules 3.v.6): the pairing editor's starting point,
and the TDs' pairing checked, audited and kept as the round's proposal, which the same approval
as the engine's publishes.

The checks are :func:`rules.stages.manual_pairing.check_pairing`: a refusal stops the pairing;
a warning (a rematch, a second bye, colours) stands only with a reason, which the audit log
keeps with every warning it overrode.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.config import Config
from bot.errors import OperationError
from bot.service.stages.qualification import engine_pairing, next_round, store_pairing
from bot.views.qualification import pairing_input
from rules.core.model import PlayerId, normalise_username
from rules.stages.manual_pairing import (
    Finding,
    HandBoard,
    HandPairing,
    Severity,
    check_pairing,
    starting_pairing,
)
from rules.swiss.dutch import PlayerNumber, RoundKind, SwissPlayer
from storage.uow import UnitOfWork

__all__ = ["EditorPlayer", "HandPairingRefused", "PairingEditor", "editor", "pair_by_hand"]


class HandPairingRefused(OperationError):
    """The TDs' pairing was not kept: its refusals, or warnings without a reason."""

    def __init__(self, message: str, findings: Sequence[Finding]) -> None:
        super().__init__(message)
        self.findings = tuple(findings)


@dataclass(frozen=True, slots=True)
class EditorPlayer:
    number: int
    player: str
    username: str
    score: Fraction
    colours: str
    """Game 1's colour in each round played, oldest first (``w``/``b``; ``-`` unplayed)."""
    opponents: tuple[str, ...]
    """The usernames of the players met, round by round ("" where none)."""
    present: bool


@dataclass(frozen=True, slots=True)
class PairingEditor:
    round: int
    total: int
    players: tuple[EditorPlayer, ...]
    """Present players first, in score order, then those not in the round."""
    start: tuple[tuple[str, str], ...]
    """The boards the editor starts from (White in game 1 first), as player ids."""
    bye: str | None
    source: str
    """``proposal`` (the round's standing proposal), ``engine`` (the engine's pairing, not
    kept) or ``search`` (the engine has none: the pairing with the fewest warnings)."""
    engine_error: str | None
    findings: tuple[Finding, ...]
    """The checks of the starting pairing."""


def _history(p: SwissPlayer, names: dict[PlayerNumber, str]) -> tuple[str, tuple[str, ...]]:
    colours = "".join(
        r.colour.value if r.kind is RoundKind.PLAYED and r.colour is not None else "-"
        for r in p.history
    )
    met = tuple("" if r.opponent is None else names.get(r.opponent, "") for r in p.history)
    return colours, met


async def editor(uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str) -> PairingEditor:
    """The next qualification round as the editor starts it: the proposal standing, else the
    engine's pairing, else (the engine finds none) the pairing with the fewest warnings."""
    stage, field, proposal, number = await next_round(uow, config, now=now, actor=actor)
    field, players, total, forbidden = await pairing_input(uow, stage, config, number)
    ids = {PlayerNumber(e.pairing_number): e.player for e in field}
    names = {PlayerNumber(e.pairing_number): e.username for e in field}
    numbers = {pid: n for n, pid in ids.items()}
    error: str | None = None
    if proposal is not None and proposal.matches:
        source = "proposal"
        start = HandPairing(
            tuple(
                HandBoard(numbers[PlayerId(m.white_first)], numbers[PlayerId(m.black_first)])
                for m in proposal.matches
                if m.black_first is not None
            ),
            next(
                (
                    numbers[PlayerId(m.white_first)]
                    for m in proposal.matches
                    if m.black_first is None
                ),
                None,
            ),
        )
    else:
        try:
            found = engine_pairing(config.rules, players, number, total, forbidden)
            source = "engine"
            start = HandPairing(tuple(HandBoard(b.white, b.black) for b in found.boards), found.bye)
        except OperationError as e:
            source, error = "search", str(e)
            start = starting_pairing(
                players,
                names=names,
                forbidden=forbidden,
                absolute_colours=config.rules.stages.absolute_colours,
            )
    findings = _check(config, players, start, names, forbidden)
    rows = []
    for p in sorted(players, key=lambda p: (not p.present, -p.score, p.number)):
        colours, met = _history(p, names)
        rows.append(
            EditorPlayer(p.number, ids[p.number], names[p.number], p.score, colours, met, p.present)
        )
    return PairingEditor(
        round=number,
        total=total,
        players=tuple(rows),
        start=tuple((ids[b.white], ids[b.black]) for b in start.boards),
        bye=None if start.bye is None else ids[start.bye],
        source=source,
        engine_error=error,
        findings=findings,
    )


def _check(
    config: Config,
    players: Sequence[SwissPlayer],
    pairing: HandPairing,
    names: dict[PlayerNumber, str],
    forbidden: frozenset[frozenset[int]],
) -> tuple[Finding, ...]:
    return check_pairing(
        players,
        pairing,
        names=names,
        forbidden=forbidden,
        points_for_win=Fraction(1),
        absolute_colours=config.rules.stages.absolute_colours,
    )


async def pair_by_hand(
    uow: UnitOfWork,
    config: Config,
    *,
    boards: Sequence[tuple[str, str]],
    bye: str | None,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> tuple[int, tuple[Finding, ...]]:
    """Keep the TDs' pairing of the next qualification round as its proposal (replacing one
    standing); the desk's approval publishes it as it does the engine's (rules 3.v.6).

    ``boards`` are (White in game 1, Black) usernames. Raises :class:`HandPairingRefused` on a
    refusal, or on warnings without a ``reason``. Returns the round and the warnings overridden.
    """
    stage, field, proposal, number = await next_round(uow, config, now=now, actor=actor)
    field, players, _total, forbidden = await pairing_input(uow, stage, config, number)
    numbers = {e.player: PlayerNumber(e.pairing_number) for e in field}
    names = {PlayerNumber(e.pairing_number): e.username for e in field}

    def number_of(name: str) -> PlayerNumber:
        pid = normalise_username(name.strip())
        if pid not in numbers:
            raise OperationError(f"{name.strip() or '(empty)'} is not a qualification entrant")
        return numbers[pid]

    pairing = HandPairing(
        tuple(HandBoard(number_of(w), number_of(b)) for w, b in boards),
        None if not bye else number_of(bye),
    )
    findings = _check(config, players, pairing, names, forbidden)
    refusals = [f for f in findings if f.severity is Severity.REFUSAL]
    if refusals:
        raise HandPairingRefused(
            "This pairing cannot be played: " + " ".join(f.text for f in refusals), refusals
        )
    reason = " ".join(reason.split())
    if findings and not reason:
        raise HandPairingRefused(
            "Give a reason to pair against these warnings (it goes into the audit log): "
            + " ".join(f.text for f in findings),
            findings,
        )
    by_number = {n: pid for pid, n in numbers.items()}
    await store_pairing(
        uow,
        config.rules,
        stage,
        proposal,
        number,
        boards=[(by_number[b.white], by_number[b.black]) for b in pairing.boards],
        bye=None if pairing.bye is None else by_number[pairing.bye],
        now=now,
    )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="round.pair_by_hand",
        reason=reason or None,
        details={
            "round": number,
            "boards": [[by_number[b.white], by_number[b.black]] for b in pairing.boards],
            "bye": None if pairing.bye is None else by_number[pairing.bye],
            "overridden": [f"{f.code}: {f.text}" for f in findings],
        },
    )
    await uow.flush()
    return number, findings
