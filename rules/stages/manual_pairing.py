"""A qualification round paired by the TDs (rules 3.v.6: "Pairings will be taken care of by the
TDs"): the checks of a pairing made by hand, the editor's starting point, and the reading of a
10-game match's colours.

The Dutch engine (:mod:`rules.swiss.dutch`) proposes; when it finds no pairing (a small field
runs out of opponents: 6 entrants, 4 rounds) or the TDs want another, they pair by hand.
:func:`check_pairing` says what is wrong with their pairing, in two kinds:

* a **refusal** (:attr:`Severity.REFUSAL`) is a pairing that cannot be played: a player twice,
  a player against himself, someone who is not an entrant, a player who left (rules 8.i.1) or
  is absent paired, a present player left out, a bye where the count is even (or none where it
  is odd). Nothing can override it.
* a **warning** (:attr:`Severity.WARNING`) is what the FIDE Dutch rules would not do but the
  TDs may, with a reason that goes into the audit log: a rematch (C.04.3 C1), a pair the TDs
  forbade, a second bye or a bye to a player who already scored a win without playing (C2),
  and colours against the players' preferences.

**Colours of a 10-game match.** The colours alternate game by game, so each player has White
in 5 of the 10 games whatever the colour of game 1; the pairing's "colour" is only the colour of
game 1. By default (``Stages.absolute_colours = False``) it is read as a *preference*: a
player prefers the other colour of his last match's game 1, and nothing is absolute. The engine
is given the colour history as :func:`colours_as_preferences` rewrites it: the same last colour,
alternating before it, so no player ever has an absolute colour preference (C.04.3 1.6: two
colours in a row, or a difference above 1) and C3 never forbids a pair; the players'
preferences still decide who has White in game 1. With ``absolute_colours = True`` the engine
sees the colours of game 1 as FIDE colours, absolute preferences and all, and a board of the TDs
that breaks one gets a warning.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.dutch import PlayerNumber, RoundKind, SwissPlayer

__all__ = [
    "SEARCH_LIMIT",
    "Finding",
    "HandBoard",
    "HandPairing",
    "Severity",
    "check_pairing",
    "colours_as_preferences",
    "starting_pairing",
]

SEARCH_LIMIT = 12
"""Up to this many present players, :func:`starting_pairing` tries every pairing; above it,
the players in score order, neighbours paired."""


class Severity(enum.StrEnum):
    WARNING = "warning"
    REFUSAL = "refusal"


@dataclass(frozen=True, slots=True)
class HandBoard:
    """One board: ``white`` has White in game 1."""

    white: PlayerNumber
    black: PlayerNumber


@dataclass(frozen=True, slots=True)
class HandPairing:
    boards: tuple[HandBoard, ...]
    bye: PlayerNumber | None = None

    @property
    def seated(self) -> tuple[PlayerNumber, ...]:
        out = [p for b in self.boards for p in (b.white, b.black)]
        return (*out, self.bye) if self.bye is not None else tuple(out)


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    code: str
    players: tuple[PlayerNumber, ...]
    text: str


def _name(names: Mapping[PlayerNumber, str], n: PlayerNumber) -> str:
    return names.get(n, f"#{n}")


def _game_one_colours(player: SwissPlayer) -> tuple[Colour, ...]:
    return tuple(
        r.colour for r in player.history if r.kind is RoundKind.PLAYED and r.colour is not None
    )


def _preference(colours: Sequence[Colour], *, absolute: bool) -> tuple[Colour | None, bool]:
    """The colour a player prefers for game 1 and whether the FIDE reading makes it absolute
    (a difference above 1, or the same colour twice in a row: C.04.3 1.6.2)."""
    if not colours:
        return None, False
    whites = sum(1 for c in colours if c is Colour.WHITE)
    difference = whites - (len(colours) - whites)
    twice = len(colours) > 1 and colours[-1] is colours[-2]
    if absolute and abs(difference) > 1:
        return (Colour.BLACK if difference > 0 else Colour.WHITE), True
    return colours[-1].opposite, absolute and twice


def colours_as_preferences(players: Iterable[SwissPlayer]) -> list[SwissPlayer]:
    """The players with each played round's colour rewritten so that the last is kept and the
    earlier ones alternate back from it: the engine then sees a preference for the other colour
    of the last game 1 and never an absolute one (the module's docstring)."""
    out = []
    for player in players:
        played = [i for i, r in enumerate(player.history) if r.kind is RoundKind.PLAYED]
        history = list(player.history)
        if played:
            last = history[played[-1]].colour
            assert last is not None
            for back, index in enumerate(reversed(played)):
                colour = last if back % 2 == 0 else last.opposite
                history[index] = replace(history[index], colour=colour)
        out.append(replace(player, history=tuple(history)))
    return out


@dataclass(frozen=True, slots=True)
class _Field:
    players: Mapping[PlayerNumber, SwissPlayer]
    names: Mapping[PlayerNumber, str]
    forbidden: frozenset[frozenset[int]]
    points_for_win: Fraction
    absolute: bool

    def met(self, a: PlayerNumber, b: PlayerNumber) -> list[int]:
        return [
            i
            for i, r in enumerate(self.players[a].history, 1)
            if r.kind is RoundKind.PLAYED and r.opponent == b
        ]

    def unplayed_win(self, n: PlayerNumber) -> list[int]:
        return [
            i
            for i, r in enumerate(self.players[n].history, 1)
            if r.kind is not RoundKind.PLAYED and r.points >= self.points_for_win
        ]


def check_pairing(
    players: Sequence[SwissPlayer],
    pairing: HandPairing,
    *,
    names: Mapping[PlayerNumber, str],
    forbidden: frozenset[frozenset[int]] = frozenset(),
    points_for_win: Fraction = Fraction(1),
    absolute_colours: bool = False,
) -> tuple[Finding, ...]:
    """What is wrong with a pairing made by hand: refusals first, then warnings, each with the
    sentence that explains it (the module's docstring)."""
    field = _Field(
        {p.number: p for p in players}, names, forbidden, points_for_win, absolute_colours
    )
    refusals = _refusals(field, pairing)
    if refusals:
        return tuple(refusals)
    warnings: list[Finding] = []
    for board in pairing.boards:
        warnings.extend(_board_warnings(field, board))
    if pairing.bye is not None:
        warnings.extend(_bye_warnings(field, pairing.bye))
    return tuple(warnings)


def _refusals(field: _Field, pairing: HandPairing) -> list[Finding]:
    out: list[Finding] = []
    name = field.names.get

    def refuse(code: str, who: tuple[PlayerNumber, ...], text: str) -> None:
        out.append(Finding(Severity.REFUSAL, code, who, text))

    seen: set[PlayerNumber] = set()
    for n in pairing.seated:
        if n not in field.players:
            refuse("unknown", (n,), f"Player #{n} is not an entrant of the qualification.")
        elif n in seen:
            refuse("twice", (n,), f"{name(n, n)} is seated twice: once a round.")
        elif not field.players[n].present:
            refuse(
                "absent",
                (n,),
                f"{name(n, n)} is not in this round (left the event or absent, rules 8.i.1).",
            )
        seen.add(n)
    for b in pairing.boards:
        if b.white == b.black:
            refuse("self", (b.white,), f"{name(b.white, b.white)} cannot play himself.")
    present = sorted(n for n, p in field.players.items() if p.present)
    for n in present:
        if n not in seen:
            refuse("missing", (n,), f"{name(n, n)} is in the round but not paired.")
    odd = len(present) % 2 == 1
    if pairing.bye is not None and not odd:
        refuse("bye", (pairing.bye,), f"{len(present)} players: an even field has no bye.")
    if pairing.bye is None and odd:
        refuse("bye", (), f"{len(present)} players: one of them gets the bye.")
    return out


def _board_warnings(field: _Field, board: HandBoard) -> list[Finding]:
    out: list[Finding] = []
    w, b = board.white, board.black
    wn, bn = _name(field.names, w), _name(field.names, b)
    rounds = field.met(w, b)
    if rounds:
        out.append(
            Finding(
                Severity.WARNING,
                "rematch",
                (w, b),
                f"{wn} and {bn} met in round {', '.join(map(str, rounds))}: a rematch, which "
                "the FIDE Dutch rules never pair (C.04.3 C1).",
            )
        )
    if frozenset((w, b)) in field.forbidden:
        out.append(
            Finding(Severity.WARNING, "forbidden", (w, b), f"The TDs forbade {wn} against {bn}.")
        )
    out.extend(_colour_warnings(field, board))
    return out


def _colour_warnings(field: _Field, board: HandBoard) -> list[Finding]:
    out: list[Finding] = []
    wants = {
        n: _preference(_game_one_colours(field.players[n]), absolute=field.absolute)
        for n in (board.white, board.black)
    }
    w_pref, b_pref = wants[board.white][0], wants[board.black][0]
    wn, bn = _name(field.names, board.white), _name(field.names, board.black)
    if w_pref is Colour.BLACK and b_pref is Colour.WHITE:
        out.append(
            Finding(
                Severity.WARNING,
                "colours",
                (board.white, board.black),
                f"{wn} prefers Black in game 1 and {bn} White: swapping them suits both.",
            )
        )
    for n, given, (pref, absolute) in (
        (board.white, Colour.WHITE, wants[board.white]),
        (board.black, Colour.BLACK, wants[board.black]),
    ):
        if absolute and pref is not given:
            out.append(
                Finding(
                    Severity.WARNING,
                    "absolute_colour",
                    (n,),
                    f"{_name(field.names, n)} gets {given.name.title()} in game 1 against an "
                    "absolute FIDE colour preference (C.04.3 1.6.2; the settings read the "
                    "colour of game 1 as a FIDE colour).",
                )
            )
    return out


def _bye_warnings(field: _Field, bye: PlayerNumber) -> list[Finding]:
    rounds = field.unplayed_win(bye)
    if not rounds:
        return []
    return [
        Finding(
            Severity.WARNING,
            "bye_again",
            (bye,),
            f"{_name(field.names, bye)} already scored a win without playing in round "
            f"{', '.join(map(str, rounds))} (a bye or a forfeit): the FIDE Dutch rules give "
            "nobody the bye twice (C.04.3 C2).",
        )
    ]


def _coloured(field: _Field, a: PlayerNumber, b: PlayerNumber) -> HandBoard:
    """``a`` (the higher ranked) and ``b`` with colours by their preferences: both served if
    they can be, else the higher ranked player's; White to ``a`` when neither has one."""
    pa, _ = _preference(_game_one_colours(field.players[a]), absolute=field.absolute)
    pb, _ = _preference(_game_one_colours(field.players[b]), absolute=field.absolute)
    if pa is Colour.BLACK or (pa is None and pb is Colour.WHITE):
        return HandBoard(white=b, black=a)
    return HandBoard(white=a, black=b)


def starting_pairing(
    players: Sequence[SwissPlayer],
    *,
    names: Mapping[PlayerNumber, str],
    forbidden: frozenset[frozenset[int]] = frozenset(),
    points_for_win: Fraction = Fraction(1),
    absolute_colours: bool = False,
) -> HandPairing:
    """Where the TDs' editor starts when the engine has no proposal: of every pairing of the
    present players (up to :data:`SEARCH_LIMIT` of them), one with the fewest rematches and
    forbidden pairs, then no second bye, then the smallest score differences, the bye to the
    lowest ranked; above the limit, neighbours in score order. Colours by preference."""
    field = _Field(
        {p.number: p for p in players}, names, forbidden, points_for_win, absolute_colours
    )
    ranked = sorted((p for p in players if p.present), key=lambda p: (-p.score, p.number))
    order = [p.number for p in ranked]
    score = {p.number: p.score for p in ranked}
    if len(order) > SEARCH_LIMIT:
        bye = order.pop() if len(order) % 2 else None
        pairs = list(zip(order[::2], order[1::2], strict=True))
    else:
        pairs, bye = _best(field, order, score)
    return HandPairing(tuple(_coloured(field, a, b) for a, b in pairs), bye)


Cost = tuple[int, int, Fraction, int]


def _best(
    field: _Field, order: list[PlayerNumber], score: Mapping[PlayerNumber, Fraction]
) -> tuple[list[tuple[PlayerNumber, PlayerNumber]], PlayerNumber | None]:
    """The pairing of ``order`` (ranked) with the least cost: rematches and forbidden pairs,
    a second bye, the score differences, then the bye's rank (the lowest ranked first)."""
    rank = {n: i for i, n in enumerate(order)}

    def pair_cost(a: PlayerNumber, b: PlayerNumber) -> tuple[int, Fraction]:
        bad = int(bool(field.met(a, b))) + int(frozenset((a, b)) in field.forbidden)
        return bad, abs(score[a] - score[b])

    best: tuple[Cost, list[tuple[PlayerNumber, PlayerNumber]], PlayerNumber | None] | None
    best = None
    byes: list[PlayerNumber | None] = [*reversed(order)] if len(order) % 2 else [None]
    for bye in byes:
        again = 0 if bye is None else int(bool(field.unplayed_win(bye)))
        lowest = 0 if bye is None else -rank[bye]
        for pairs in _matchings([n for n in order if n != bye]):
            costs = [pair_cost(a, b) for a, b in pairs]
            total: Cost = (
                sum(c[0] for c in costs),
                again,
                sum((c[1] for c in costs), Fraction(0)),
                lowest,
            )
            if best is None or total < best[0]:
                best = (total, pairs, bye)
    assert best is not None
    return best[1], best[2]


def _matchings(
    order: list[PlayerNumber],
) -> Iterable[list[tuple[PlayerNumber, PlayerNumber]]]:
    """Every way to pair ``order`` (an even list), the first player with each other in turn."""
    if not order:
        yield []
        return
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        for tail in _matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]
