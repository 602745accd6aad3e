"""Reading and writing FIDE Tournament Report Files (TRF16 and TRF-2026) for pairing.

Only what pairing needs is interpreted: the ``001`` player records with their round cells, the
number of rounds (``XXR`` in TRF16 / JaVaFo usage, ``142`` in TRF-2026), the initial colour
(``XXC white1``/``XXC black1``, ``152 W``/``152 B``) and prohibited pairings (``XXP`` lists of
players, ``260`` records with a round range). Every other line is kept verbatim and written
back in its place, so ``parse_trf(write_trf(t)) == t``.

Conventions (shared by the FIDE-endorsed engines):

* The rounds already played are those in which some player has a *paired* cell (an opponent, or
  the pairing-allocated bye ``U``); the next round is the one after the last of them.
* A player's cell for the next round, if present, says he will not be paired: ``Z``, ``H``,
  ``F``, ``-`` or blank with opponent ``0000`` mark him absent. A player with no cell for the
  next round is present.
* Scores are recomputed from the cells of the rounds played (win 1, draw 1/2, ``U``/``F``/``+``
  1, ``H`` 1/2), not read from columns 81-84.
* A forfeit (``+``/``-`` against an opponent) is a pairing whose game was not played.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.swiss.dutch import (
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
    pair_round,
)

__all__ = [
    "TrfCell",
    "TrfError",
    "TrfPlayer",
    "TrfProhibition",
    "TrfReason",
    "TrfResult",
    "TrfTournament",
    "decode_trf",
    "format_pairing",
    "next_round_number",
    "pair_trf_round",
    "parse_trf",
    "players_before",
    "players_for_next_round",
    "run_pair",
    "write_trf",
]

_FIRST_CELL = 91  # 0-based column of round 1's opponent field (position 92)
_CELL_WIDTH = 10


class TrfReason(enum.Enum):
    """Why a TRF file was rejected."""

    MALFORMED = "malformed"


class TrfError(RulesError):
    """The TRF text is invalid; ``line`` and ``column`` (1-based) locate the fault."""

    def __init__(self, line: int, column: int, problem: str) -> None:
        super().__init__(TrfReason.MALFORMED, f"line {line}, column {column}: {problem}")
        self.line = line
        self.column = column


class TrfResult(enum.Enum):
    """The result code of a round cell (TRF16 / TRF-2026 position 99)."""

    WIN = "1"
    LOSS = "0"
    DRAW = "="
    FORFEIT_WIN = "+"
    FORFEIT_LOSS = "-"
    UNRATED_WIN = "W"
    UNRATED_DRAW = "D"
    UNRATED_LOSS = "L"
    PAIRING_BYE = "U"
    HALF_BYE = "H"
    FULL_BYE = "F"
    ZERO_BYE = "Z"
    BLANK = " "


_PLAYED = {
    TrfResult.WIN: Fraction(1),
    TrfResult.LOSS: Fraction(0),
    TrfResult.DRAW: Fraction(1, 2),
    TrfResult.UNRATED_WIN: Fraction(1),
    TrfResult.UNRATED_DRAW: Fraction(1, 2),
    TrfResult.UNRATED_LOSS: Fraction(0),
}
_UNPLAYED = {
    TrfResult.FORFEIT_WIN: Fraction(1),
    TrfResult.FORFEIT_LOSS: Fraction(0),
    TrfResult.PAIRING_BYE: Fraction(1),
    TrfResult.HALF_BYE: Fraction(1, 2),
    TrfResult.FULL_BYE: Fraction(1),
    TrfResult.ZERO_BYE: Fraction(0),
    TrfResult.BLANK: Fraction(0),
}


@dataclass(frozen=True, slots=True)
class TrfCell:
    """One round of a player: scheduled opponent (None for 0000), colour, result."""

    opponent: int | None
    colour: Colour | None
    result: TrfResult

    @property
    def is_paired(self) -> bool:
        """The player took part in the pairing of this round (opponent or PAB)."""
        return self.opponent is not None or self.result is TrfResult.PAIRING_BYE


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A ``001`` record. ``static`` keeps columns 9-89 verbatim (sex, title, name, ...)."""

    number: int
    static: str
    rounds: tuple[TrfCell, ...]
    line: int = field(default=0, compare=False)
    """The line of the file the record was read from (1-based; 0: not read from a file)."""

    @property
    def name(self) -> str:
        """The name field, positions 15-47."""
        return self.static[5:38].strip()


@dataclass(frozen=True, slots=True)
class TrfProhibition:
    """Players who may not meet each other, in rounds ``first``..``last`` (None: every round)."""

    players: tuple[int, ...]
    first: int | None = None
    last: int | None = None

    def applies_to(self, round_number: int) -> bool:
        """Whether the prohibition holds in ``round_number``."""
        return (self.first is None or self.first <= round_number) and (
            self.last is None or round_number <= self.last
        )


@dataclass(frozen=True, slots=True)
class TrfTournament:
    """The content of a TRF file that pairing needs, plus every other line verbatim."""

    players: tuple[TrfPlayer, ...]
    total_rounds: int | None = None
    initial_colour: Colour | None = None
    prohibitions: tuple[TrfProhibition, ...] = ()
    trf2026: bool = False
    """Write the round count, initial colour and prohibitions as 142/152/260 records."""
    other_lines: tuple[str, ...] = ()
    """Unrecognised lines, written back before the player records."""


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def _int_field(text: str, line: int, column: int, what: str) -> int:
    stripped = text.strip()
    if not stripped.isdigit():
        raise TrfError(line, column, f"{what} must be a number, found {text!r}")
    return int(stripped)


def _parse_cell(line_text: str, start: int, line: int) -> TrfCell:  # noqa: C901 (one check a field of TRF's fixed columns)
    """The cell at ``start`` of ``line_text`` (the record as in the file, trailing blanks
    removed): opponent (4), blank, colour, blank, result."""
    digits = line_text[start : start + 4]
    opponent_text = digits.strip()
    if opponent_text and not opponent_text.isdigit():
        raise TrfError(line, start + 1, f"opponent must be a number, found {digits!r}")
    opponent = int(opponent_text) if opponent_text else 0
    if opponent and len(line_text) < start + 8:
        # A scheduled game needs its colour and result: the record ends inside the cell.
        raise TrfError(
            line,
            len(line_text) + 1,
            f"round cell cut short: opponent {opponent} without "
            + ("a colour and " if len(line_text) < start + 6 else "")
            + "a result",
        )
    colour_char = line_text[start + 5] if len(line_text) > start + 5 else " "
    if line_text[start + 4 : start + 5].strip():
        raise TrfError(line, start + 5, "expected a blank between opponent and colour")
    colour: Colour | None
    if colour_char in ("w", "W"):
        colour = Colour.WHITE
    elif colour_char in ("b", "B"):
        colour = Colour.BLACK
    elif colour_char in ("-", " "):
        colour = None
    else:
        raise TrfError(line, start + 6, f"colour must be w, b or -, found {colour_char!r}")
    result_char = line_text[start + 7] if len(line_text) > start + 7 else " "
    try:
        result = TrfResult(result_char.upper())
    except ValueError:
        raise TrfError(line, start + 8, f"unknown result code {result_char!r}") from None
    if opponent == 0:
        if result in _PLAYED:
            raise TrfError(line, start + 8, "a played game needs an opponent")
        return TrfCell(opponent=None, colour=None, result=result)
    if result in _PLAYED and colour is None:
        raise TrfError(line, start + 6, "a played game needs the colour w or b")
    if result is TrfResult.BLANK:
        raise TrfError(line, start + 8, f"no result against opponent {opponent}")
    if colour_char == " ":
        raise TrfError(line, start + 6, "the colour must be w, b or - when there is an opponent")
    if result in (TrfResult.PAIRING_BYE, TrfResult.HALF_BYE, TrfResult.FULL_BYE):
        raise TrfError(line, start + 8, "a bye cannot have an opponent")
    return TrfCell(opponent=opponent, colour=colour, result=result)


def _parse_player(text: str, line: int) -> TrfPlayer:
    if len(text) < 8:
        raise TrfError(line, len(text) + 1, "player record too short for its number")
    if text[3:4].strip():
        raise TrfError(line, 4, "expected a blank after 001")
    number = _int_field(text[4:8], line, 5, "starting rank")
    if number < 1:
        raise TrfError(line, 5, "starting rank must be positive")
    static = text[8 : _FIRST_CELL - 2].ljust(_FIRST_CELL - 10)
    points = static[72:76]
    if points.strip():
        try:
            Fraction(points.strip())
        except ValueError:
            raise TrfError(line, 81, f"points must be a number, found {points!r}") from None
    cells: list[TrfCell] = []
    start = _FIRST_CELL
    rest = text.rstrip()
    while start < len(rest):
        if text[start - 2 : start].strip():
            raise TrfError(line, start - 1, "round cells must be separated by blanks")
        if len(rest) > start + 8 and rest[start + 8] != " ":
            raise TrfError(line, start + 9, "round cells must be separated by blanks")
        cells.append(_parse_cell(rest, start, line))
        start += _CELL_WIDTH
    # Trailing blank cells carry no information.
    while cells and cells[-1] == TrfCell(None, None, TrfResult.BLANK):
        cells.pop()
    if points.strip():
        _check_points(points.strip(), cells, line)
    return TrfPlayer(number=number, static=static, rounds=tuple(cells), line=line)


_HALF_POINTS = {result: int(points * 2) for result, points in (_PLAYED | _UNPLAYED).items()}


def _check_points(points: str, cells: list[TrfCell], line: int) -> None:
    """The score column (positions 81-84) must be the sum of the results: of every cell, or
    of the rounds before a pre-set absence (``H``, ``F``, ``Z``) at the end of the record."""
    halves = [_HALF_POINTS[cell.result] for cell in cells]
    played = len(cells)
    while played and not cells[played - 1].is_paired:
        played -= 1
    total, before = Fraction(sum(halves), 2), Fraction(sum(halves[:played]), 2)
    stated = Fraction(points)
    if stated not in (total, before):
        shown = float(total) if total.denominator > 1 else int(total)
        raise TrfError(line, 81, f"points {points} contradict the results, which sum to {shown}")


def _parse_numbers(text: str, line: int, offset: int) -> tuple[int, ...]:
    numbers: list[int] = []
    column = offset
    for token in text.split(" "):
        if token:
            numbers.append(_int_field(token, line, column + 1, "player number"))
        column += len(token) + 1
    return tuple(numbers)


def decode_trf(data: bytes) -> str:
    """The text of a TRF file's bytes, which must be UTF-8 (ASCII included).

    Raises:
        TrfError: undecodable bytes, at the line and column of the first of them.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8-sig")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        raise TrfError(
            line, column, f"byte 0x{data[error.start]:02x} is not UTF-8 text: not a TRF file"
        ) from None


def _check_characters(line: str, number: int) -> None:
    for column, character in enumerate(line, start=1):
        if (ord(character) < 32 and character != "\t") or ord(character) == 127:
            raise TrfError(
                number, column, f"control character {character!r} in the text: not a TRF file"
            )


def parse_trf(text: str) -> TrfTournament:  # noqa: C901 (one case a TRF record kind)
    """Parse TRF16 or TRF-2026 text.

    Raises:
        TrfError: a line is malformed; the message names its line and column.
    """
    players: list[TrfPlayer] = []
    others: list[str] = []
    total_rounds: int | None = None
    initial: Colour | None = None
    prohibitions: list[TrfProhibition] = []
    trf2026 = False
    numbers: set[int] = set()
    for line_number, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r")
        _check_characters(line, line_number)
        tag = line[:3]
        if tag == "001":
            player = _parse_player(line, line_number)
            if player.number in numbers:
                raise TrfError(line_number, 5, f"starting rank {player.number} appears twice")
            numbers.add(player.number)
            players.append(player)
        elif tag == "XXR":
            total_rounds = _int_field(line[3:], line_number, 5, "number of rounds")
        elif tag == "142":
            total_rounds = _int_field(line[3:], line_number, 5, "number of rounds")
            trf2026 = True
        elif tag == "XXC":
            words = line[3:].split()
            if "white1" in words:
                initial = Colour.WHITE
            elif "black1" in words:
                initial = Colour.BLACK
            elif not all(word == "rank" for word in words):
                raise TrfError(line_number, 5, "XXC expects white1 or black1")
        elif tag == "152":
            value = line[4:].strip().upper()
            if value not in ("W", "B"):
                raise TrfError(line_number, 5, "152 expects W or B")
            initial = Colour.WHITE if value == "W" else Colour.BLACK
            trf2026 = True
        elif tag == "XXP":
            group = _parse_numbers(line[4:], line_number, 4)
            if len(group) < 2:
                raise TrfError(line_number, 5, "XXP needs at least two players")
            prohibitions.append(TrfProhibition(players=group))
        elif tag == "260":
            first = _int_field(line[4:7], line_number, 5, "first round")
            last = _int_field(line[8:11], line_number, 9, "last round")
            group = _parse_numbers(line[12:], line_number, 12)
            if len(group) < 2:
                raise TrfError(line_number, 13, "260 needs at least two players")
            if last < first:
                raise TrfError(line_number, 9, "last round before first round")
            prohibitions.append(TrfProhibition(players=group, first=first, last=last))
            trf2026 = True
        elif line.strip():
            others.append(line)
    return TrfTournament(
        players=tuple(players),
        total_rounds=total_rounds,
        initial_colour=initial,
        prohibitions=tuple(prohibitions),
        trf2026=trf2026,
        other_lines=tuple(others),
    )


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _format_cell(cell: TrfCell) -> str:
    opponent = f"{cell.opponent:4d}" if cell.opponent is not None else "0000"
    colour = cell.colour.value if cell.colour is not None else "-"
    return f"{opponent} {colour} {cell.result.value}"


def _format_player(player: TrfPlayer) -> str:
    cells = "".join("  " + _format_cell(cell) for cell in player.rounds)
    return f"001 {player.number:4d}{player.static}{cells}".rstrip()


def write_trf(tournament: TrfTournament) -> str:
    """Write a tournament as TRF text (TRF-2026 tags when ``trf2026``, else XX tags)."""
    lines = list(tournament.other_lines)
    if tournament.trf2026:
        if tournament.total_rounds is not None:
            lines.append(f"142 {tournament.total_rounds}")
        if tournament.initial_colour is not None:
            lines.append(f"152 {'W' if tournament.initial_colour is Colour.WHITE else 'B'}")
    lines.extend(_format_player(player) for player in tournament.players)
    for prohibition in tournament.prohibitions:
        numbers = " ".join(f"{number:4d}" for number in prohibition.players)
        if tournament.trf2026 or prohibition.first is not None:
            first = prohibition.first if prohibition.first is not None else 1
            last = prohibition.last if prohibition.last is not None else 999
            lines.append(f"260 {first:03d} {last:03d} {numbers}")
        else:
            lines.append(f"XXP {numbers}")
    if not tournament.trf2026:
        if tournament.total_rounds is not None:
            lines.append(f"XXR {tournament.total_rounds}")
        if tournament.initial_colour is not None:
            token = "white1" if tournament.initial_colour is Colour.WHITE else "black1"
            lines.append(f"XXC {token}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# From a TRF to the pairing engine and back
# ---------------------------------------------------------------------------


def next_round_number(tournament: TrfTournament) -> int:
    """The round to pair: one after the last round in which anybody was paired."""
    played = 0
    for player in tournament.players:
        for index, cell in enumerate(player.rounds):
            if cell.is_paired:
                played = max(played, index + 1)
    return played + 1


def _record(cell: TrfCell) -> RoundRecord:
    if cell.result in _PLAYED:
        assert cell.opponent is not None
        return RoundRecord(
            kind=RoundKind.PLAYED,
            points=_PLAYED[cell.result],
            opponent=PlayerNumber(cell.opponent),
            colour=cell.colour,
        )
    points = _UNPLAYED[cell.result]
    if cell.result is TrfResult.PAIRING_BYE:
        return RoundRecord(kind=RoundKind.PAIRING_BYE, points=points)
    if cell.opponent is not None:
        return RoundRecord(
            kind=RoundKind.FORFEIT, points=points, opponent=PlayerNumber(cell.opponent)
        )
    return RoundRecord(kind=RoundKind.ABSENT, points=points)


_OUTCOME = {
    TrfResult.WIN: "1",
    TrfResult.UNRATED_WIN: "1",
    TrfResult.LOSS: "0",
    TrfResult.UNRATED_LOSS: "0",
    TrfResult.DRAW: "=",
    TrfResult.UNRATED_DRAW: "=",
    TrfResult.FORFEIT_WIN: "+",
    TrfResult.FORFEIT_LOSS: "-",
}
_AGREEING = {("1", "0"), ("0", "1"), ("=", "="), ("+", "-"), ("-", "+"), ("-", "-")}


def _game_problem(cell: TrfCell, back: TrfCell) -> str | None:
    """Why the two players' cells of one game disagree, or None."""
    if cell.colour is not None and cell.colour is back.colour:
        return f"both players have {cell.colour.name.lower()}"
    mine, theirs = _OUTCOME.get(cell.result), _OUTCOME.get(back.result)
    if mine is None or theirs is None or (mine, theirs) not in _AGREEING:
        return f"results {cell.result.value!r} and {back.result.value!r} do not fit together"
    return None


def players_for_next_round(tournament: TrfTournament) -> list[SwissPlayer]:
    """The players' states before :func:`next_round_number`, for
    :func:`rules.swiss.dutch.pair_round`.

    Raises:
        TrfError: a cell names an unknown opponent or the two players' cells disagree (the
            line and column of the offending cell are given).
    """
    return players_before(tournament, next_round_number(tournament))


def players_before(
    tournament: TrfTournament, round_number: int, *, replay: bool = False
) -> list[SwissPlayer]:
    """The players' states before ``round_number``. A player is present when his cell for
    the round does not mark him absent; with ``replay`` (a round already paired, checked
    again) only a player paired in that round is present.

    Raises:
        TrfError: as :func:`players_for_next_round`.
    """
    played = round_number - 1
    by_number = {player.number: player for player in tournament.players}
    blank = TrfCell(opponent=None, colour=None, result=TrfResult.BLANK)
    result: list[SwissPlayer] = []
    for position, player in enumerate(tournament.players):
        line = player.line or position + 1
        cells = list(player.rounds[:played]) + [blank] * (played - len(player.rounds[:played]))
        for index, cell in enumerate(cells):
            if cell.opponent is None:
                continue
            column = _FIRST_CELL + 1 + index * _CELL_WIDTH
            other = by_number.get(cell.opponent)
            if other is None:
                raise TrfError(line, column, f"unknown opponent {cell.opponent}")
            back = other.rounds[index] if index < len(other.rounds) else blank
            if back.opponent != player.number:
                raise TrfError(
                    line,
                    column,
                    f"player {cell.opponent} does not list {player.number} in round {index + 1}",
                )
            problem = _game_problem(cell, back)
            if problem is not None:
                raise TrfError(
                    line, column, f"round {index + 1} against {cell.opponent}: {problem}"
                )
        upcoming = player.rounds[played] if len(player.rounds) > played else None
        present = upcoming is not None and upcoming.is_paired if replay else upcoming is None
        result.append(
            SwissPlayer(
                number=PlayerNumber(player.number),
                history=tuple(_record(cell) for cell in cells),
                present=present,
            )
        )
    return result


def pair_trf_round(
    tournament: TrfTournament, round_number: int, *, replay: bool = False
) -> RoundPairing:
    """Pair ``round_number`` of the tournament from the rounds before it (``replay``: see
    :func:`players_before`).

    Raises:
        TrfError: the file is invalid or has no round count.
        NoLegalPairingError: no pairing satisfies the absolute criteria.
    """
    if tournament.total_rounds is None:
        raise TrfError(1, 1, "no XXR or 142 line: the number of rounds is unknown")
    players = players_before(tournament, round_number, replay=replay)
    forbidden = frozenset(
        frozenset((a, b))
        for prohibition in tournament.prohibitions
        if prohibition.applies_to(round_number)
        for a in prohibition.players
        for b in prohibition.players
        if a != b
    )
    return pair_round(
        players,
        round_number=round_number,
        total_rounds=tournament.total_rounds,
        forbidden=forbidden,
        initial_colour=tournament.initial_colour or Colour.WHITE,
    )


def format_pairing(pairing: RoundPairing) -> str:
    """The FIDE engines' output: the number of pairs (bye included), then ``white black``
    per board, the bye as ``number 0``."""
    lines = [str(len(pairing.boards) + (pairing.bye is not None))]
    lines.extend(f"{board.white} {board.black}" for board in pairing.boards)
    if pairing.bye is not None:
        lines.append(f"{pairing.bye} 0")
    return "\n".join(lines) + "\n"


def run_pair(trf: str | bytes) -> tuple[int, str]:
    """Pair the next round of a TRF (its text, or its bytes: UTF-8): ``(0, pairing)``,
    ``(1, reason)`` when no legal pairing exists, ``(3, message)`` for invalid input (the
    message names line and column)."""
    try:
        tournament = parse_trf(decode_trf(trf) if isinstance(trf, bytes) else trf)
        round_number = next_round_number(tournament)
        if tournament.total_rounds is None:
            return 3, "no XXR or 142 line: the number of rounds is unknown"
        if round_number > tournament.total_rounds:
            return 3, f"all {tournament.total_rounds} rounds have already been paired"
        pairing = pair_trf_round(tournament, round_number)
    except NoLegalPairingError as error:
        return 1, error.message
    except RulesError as error:
        return 3, error.message
    return 0, format_pairing(pairing)
