"""Reading and writing FIDE Tournament Report Files (TRF16 and TRF-2026) for pairing.

Only what pairing needs is interpreted: the ``001`` player records with their round cells, the
number of rounds (``XXR`` in TRF16 / JaVaFo usage, ``142`` in TRF-2026), the initial colour
(``XXC white1``/``XXC black1``, ``152 W``/``152 B``) and prohibited pairings (``XXP`` lists of
players, ``260`` records with a round range). Every other line is kept verbatim and written
back in its place, so ``parse_trf(write_trf(t)) == t``.

Conventions (the standard's where it speaks, bbpPairings' where it is silent; docs/pairing.md):

* Lines end in CR (as the standard asks), LF or CR LF.
* The rounds already played: up to the last round in which some player has a *paired* cell
  (an opponent, or the pairing-allocated bye ``U``), and every round before a recorded cell
  (any cell that is not all blanks). If every player has a cell for the round after those,
  that round was played too. The next round is the one after them.
* A player's cell for the next round (``0000 - H``, ``F``, ``Z``, ``-`` or a blank result)
  says he will not be paired, and so does a TRF-2026 ``240`` bye record for that round. A
  player with no cell for the next round (or only blanks) is present.
* Scores are recomputed from the cells of the rounds played (win 1, draw 1/2, ``U``/``F``/``+``
  1, ``H`` 1/2). The score column (81-84), when filled in, must be the sum over the rounds
  played, with or without the cell of the round being paired.
* Without an initial-colour line (``XXC``, ``152``) the first colour is the one the
  highest-ranked player paired in the first round with colours received there (the second
  one's reversed, and so on, when he has none).
* A forfeit (``+``/``-`` against an opponent) is a pairing whose game was not played.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.swiss.acceleration import baku_records, virtual_points
from rules.swiss.dutch import (
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
    pair_round,
)
from rules.swiss.fide_mode import check_fide_mode
from rules.swiss.round_ratings import (
    FLAG_LINE,
    format_round_rating,
    pairing_numbers,
    read_flag_line,
    read_round_rating,
    relabel_pairing,
    relabel_players,
)

__all__ = [
    "TrfAcceleration",
    "TrfBye",
    "TrfCell",
    "TrfError",
    "TrfPlayer",
    "TrfProhibition",
    "TrfReason",
    "TrfResult",
    "TrfTournament",
    "accelerations",
    "decode_trf",
    "format_pairing",
    "infer_initial_colour",
    "next_round_number",
    "pair_trf_round",
    "parse_trf",
    "players_before",
    "players_for_next_round",
    "rounds_played",
    "run_pair",
    "write_trf",
]

from rules.swiss.trf_model import (
    CELL_WIDTH,
    FIRST_CELL,
    PLAYED_POINTS,
    UNPLAYED_POINTS,
    TrfAcceleration,
    TrfBye,
    TrfCell,
    TrfError,
    TrfPlayer,
    TrfProhibition,
    TrfReason,
    TrfResult,
    TrfRoundRating,
    TrfTieBreakLine,
    TrfTournament,
)

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
        if result in PLAYED_POINTS:
            raise TrfError(line, start + 8, "a played game needs an opponent")
        return TrfCell(opponent=None, colour=None, result=result)
    if result in PLAYED_POINTS and colour is None:
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
    static = text[8 : FIRST_CELL - 2].ljust(FIRST_CELL - 10)
    points = static[72:76]
    if points.strip():
        try:
            Fraction(points.strip())
        except ValueError:
            raise TrfError(line, 81, f"points must be a number, found {points!r}") from None
    cells: list[TrfCell] = []
    start = FIRST_CELL
    rest = text.rstrip()
    recorded = 0  # the cells up to the last one that is not all blanks
    while start < len(rest):
        if text[start - 2 : start].strip():
            raise TrfError(line, start - 1, "round cells must be separated by blanks")
        if len(rest) > start + 8 and rest[start + 8] != " ":
            raise TrfError(line, start + 9, "round cells must be separated by blanks")
        cells.append(_parse_cell(rest, start, line))
        if rest[start : start + 8].strip():
            recorded = len(cells)
        start += CELL_WIDTH
    # Trailing all-blank cells carry no information; "0000 -" with a blank result is an absence.
    return TrfPlayer(number=number, static=static, rounds=tuple(cells[:recorded]), line=line)


_LINE_END = re.compile("\r\n|\r|\n")
"""The standard ends each line with a CR; LF and CR LF are read too."""

_HALF_POINTS = {
    result: int(points * 2) for result, points in (PLAYED_POINTS | UNPLAYED_POINTS).items()
}


def _check_points(player: TrfPlayer, played: int) -> None:
    """The score column (positions 81-84), when filled in, must be the sum of the results of
    the rounds played, or of those and the cell of the round being paired (a requested bye
    entered beforehand)."""
    points = player.static[72:76].strip()
    if not points:
        return
    halves = [_HALF_POINTS[cell.result] for cell in player.rounds]
    before, with_next = Fraction(sum(halves[:played]), 2), Fraction(sum(halves[: played + 1]), 2)
    if Fraction(points) not in (before, with_next):
        shown = float(before) if before.denominator > 1 else int(before)
        raise TrfError(
            player.line,
            81,
            f"points {points} contradict the results of the {played} rounds played, "
            f"which sum to {shown}",
        )


def _parse_numbers(text: str, line: int, offset: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The numbers of a list separated by blanks, and the (1-based) column of each."""
    numbers: list[int] = []
    columns: list[int] = []
    column = offset
    for token in text.split(" "):
        if token:
            numbers.append(_int_field(token, line, column + 1, "player number"))
            columns.append(column + 1)
        column += len(token) + 1
    return tuple(numbers), tuple(columns)


def decode_trf(data: bytes) -> str:
    """The text of a TRF file's bytes, which must be UTF-8 (ASCII included).

    Raises:
        TrfError: undecodable bytes, at the line and column of the first of them.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        lines = _LINE_END.split(data[: error.start].decode("utf-8-sig"))
        line, column = len(lines), len(lines[-1]) + 1
        raise TrfError(
            line, column, f"byte 0x{data[error.start]:02x} is not UTF-8 text: not a TRF file"
        ) from None


def _check_characters(line: str, number: int) -> None:
    for column, character in enumerate(line, start=1):
        if (ord(character) < 32 and character != "\t") or ord(character) == 127:
            raise TrfError(
                number, column, f"control character {character!r} in the text: not a TRF file"
            )


class _Reading:
    """What :func:`parse_trf` has read so far."""

    def __init__(self) -> None:
        self.players: list[TrfPlayer] = []
        self.others: list[str] = []
        self.total_rounds: int | None = None
        self.initial: Colour | None = None
        self.prohibitions: list[TrfProhibition] = []
        self.byes: list[TrfBye] = []
        self.tiebreaks: TrfTieBreakLine | None = None
        self.accelerations: list[TrfAcceleration] = []
        self.baku = False
        self.per_round_ratings = False
        self.round_ratings: list[TrfRoundRating] = []
        self.trf2026 = False
        self.numbers: set[int] = set()

    def read(self, line: str, number: int) -> None:
        tag = line[:3]
        if tag == "001":
            player = _parse_player(line, number)
            if player.number in self.numbers:
                raise TrfError(number, 5, f"starting rank {player.number} appears twice")
            self.numbers.add(player.number)
            self.players.append(player)
        elif tag in ("XXR", "142"):
            self.total_rounds = _int_field(line[3:], number, 5, "number of rounds")
            if self.total_rounds < 1:
                raise TrfError(number, 5, "the number of rounds must be at least 1")
            self.trf2026 |= tag == "142"
        elif tag in ("XXC", "152"):
            self.initial = _initial_colour_line(line, number)
            self.trf2026 |= tag == "152"
        elif tag in ("XXP", "260"):
            self.prohibitions.append(_prohibition(line, number))
            self.trf2026 |= tag == "260"
        elif tag == "XXO":
            self.per_round_ratings |= read_flag_line(line, number)
        elif tag == "XXL":
            self.round_ratings.append(read_round_rating(line, number))
        elif tag in ("240", "250"):
            self.read_record(line, number)
        elif tag in ("192", "202", "212") or tag in _UNSUPPORTED:
            self.read_kept(line, number)
        elif line.strip():
            self.others.append(line)

    def read_record(self, line: str, number: int) -> None:
        """A TRF-2026 record that is not written back verbatim: ``240`` or ``250``."""
        if line[:3] == "240":
            self.byes.append(_bye_record(line, number))
        else:
            self.accelerations.append(_acceleration_record(line, number))
        self.trf2026 = True

    def read_kept(self, line: str, number: int) -> None:
        """A line written back verbatim that says something: the tournament type (Baku
        acceleration), the tie-break list, or a record the engine may not support."""
        tag = line[:3]
        if tag == "192" and line[4:].strip().upper() in _BAKU:
            self.baku = True
        elif tag in ("202", "212"):
            if self.tiebreaks is None or tag == "212":
                self.tiebreaks = TrfTieBreakLine(line, number)
        else:
            _check_supported(line, number)
        self.others.append(line)


def _initial_colour_line(line: str, number: int) -> Colour | None:
    if line[:3] == "152":
        value = line[4:].strip().upper()
        if value not in ("W", "B"):
            raise TrfError(number, 5, "152 expects W or B")
        return Colour.WHITE if value == "W" else Colour.BLACK
    words = line[3:].split()
    if "white1" in words:
        return Colour.WHITE
    if "black1" in words:
        return Colour.BLACK
    if not all(word == "rank" for word in words):
        raise TrfError(number, 5, "XXC expects white1 or black1")
    return None


def _prohibition(line: str, number: int) -> TrfProhibition:
    if line[:3] == "XXP":
        group, columns = _parse_numbers(line[4:], number, 4)
        if len(group) < 2:
            raise TrfError(number, 5, "XXP needs at least two players")
        return TrfProhibition(players=group, line=number, columns=columns)
    first = _int_field(line[4:7], number, 5, "first round")
    last = _int_field(line[8:11], number, 9, "last round")
    group, columns = _parse_numbers(line[12:], number, 12)
    if len(group) < 2:
        raise TrfError(number, 13, "260 needs at least two players")
    if last < first:
        raise TrfError(number, 9, "last round before first round")
    return TrfProhibition(players=group, first=first, last=last, line=number, columns=columns)


_UNSUPPORTED = {
    "162": "point systems other than 1, 1/2, 0",
    "BBW": "point systems other than 1, 1/2, 0",
    "BBD": "point systems other than 1, 1/2, 0",
    "BBL": "point systems other than 1, 1/2, 0",
    "BBZ": "point systems other than 1, 1/2, 0",
    "BBF": "point systems other than 1, 1/2, 0",
    "BBU": "point systems other than 1, 1/2, 0",
    "XXS": "point systems other than 1, 1/2, 0",
    "XXA": "accelerations by XXA lines (write 250 records)",
    "192": "tournament types other than the FIDE Dutch system",
    "299": "abnormal assignment points",
    "013": "team tournaments",
    "310": "team tournaments",
}
_DEFAULT_POINTS = {"W": "1.0", "D": "0.5", "L": "0.0", "A": "0.0", "P": "1.0", "X": "0.5"}


def _check_supported(line: str, number: int) -> None:
    """Refuse what the engine would otherwise read wrongly: records it does not implement, unless
    they say what it does anyway (the default points, a Dutch tournament type)."""
    tag = line[:3]
    if tag == "162":
        codes = re.findall(r"([A-Z])\s*(\d+(?:\.\d+)?)", line[4:])
        if codes and all(
            _DEFAULT_POINTS.get(code) == f"{float(value):.1f}" for code, value in codes
        ):
            return
    if tag == "192" and "BAKU" not in line.upper():
        return  # the Dutch system (a Baku one is read before this)
    if tag == "BBU" and line[4:].strip() in ("1", "1.0"):
        return
    raise TrfError(number, 1, f"{tag}: {_UNSUPPORTED[tag]} are not supported by this engine")


_BAKU = ("FIDE_DUTCH_2025_BAKU", "FIDE_DUTCH_BAKU")


def _points_field(text: str, line: int, column: int) -> Fraction:
    try:
        return Fraction(text.strip())
    except ValueError:
        raise TrfError(line, column, f"expected points such as 1.0, found {text!r}") from None


def _acceleration_record(line: str, number: int) -> TrfAcceleration:
    """A ``250`` record: ``250 MMMM GGGG RRF RRL PPPF PPPL`` (match points, empty for
    individuals; virtual points; first and last round; first and last player)."""
    if line[4:8].strip() and _points_field(line[4:8], number, 5):
        raise TrfError(number, 5, "250: match points are for team competitions")
    points = _points_field(line[9:13], number, 10)
    if points <= 0:
        raise TrfError(number, 10, "250: the virtual points must be above 0")
    first = _int_field(line[14:17], number, 15, "first round")
    last = _int_field(line[18:21], number, 19, "last round")
    low = _int_field(line[22:26], number, 23, "first player")
    high = _int_field(line[27:31], number, 28, "last player")
    if first < 1 or last < first:
        raise TrfError(number, 19 if first >= 1 else 15, "250: the rounds are not a range")
    if low < 1 or high < low:
        raise TrfError(number, 28 if low >= 1 else 23, "250: the players are not a range")
    if line[31:].strip():
        raise TrfError(number, 32, "250: unexpected text after the last player")
    return TrfAcceleration(points, first, last, low, high, line=number)


_BYE_KINDS = {"F": TrfResult.FULL_BYE, "H": TrfResult.HALF_BYE, "Z": TrfResult.ZERO_BYE}


def _bye_record(line: str, number: int) -> TrfBye:
    """A ``240`` record: ``240 T RRR PPPP PPPP ...`` (type F, H or Z; round; players)."""
    kind = _BYE_KINDS.get(line[4:5].upper())
    if kind is None or line[3:4].strip() or line[5:6].strip():
        raise TrfError(number, 5, "240 expects the bye's type F, H or Z at position 5")
    round_number = _int_field(line[6:9], number, 7, "round number")
    if round_number < 1:
        raise TrfError(number, 7, "the round number must be at least 1")
    players, columns = _parse_numbers(line[9:], number, 9)
    if not players:
        raise TrfError(number, 11, "240 names no player")
    return TrfBye(kind, round_number, players, line=number, columns=columns)


def parse_trf(text: str) -> TrfTournament:
    """Parse TRF16 or TRF-2026 text (lines ending in CR, LF or CR LF).

    Raises:
        TrfError: a line is malformed, or names a player who does not exist, or a round has
            two pairing-allocated byes, or a score contradicts the results; the message names
            its line and column.
    """
    reading = _Reading()
    for line_number, line in enumerate(_LINE_END.split(text), start=1):
        _check_characters(line, line_number)
        reading.read(line, line_number)
    tournament = TrfTournament(
        players=tuple(reading.players),
        total_rounds=reading.total_rounds,
        initial_colour=reading.initial,
        prohibitions=tuple(reading.prohibitions),
        byes=tuple(reading.byes),
        accelerations=tuple(reading.accelerations),
        baku=reading.baku,
        tiebreaks=reading.tiebreaks,
        per_round_ratings=reading.per_round_ratings,
        round_ratings=tuple(reading.round_ratings),
        trf2026=reading.trf2026,
        other_lines=tuple(reading.others),
    )
    _check_file(tournament)
    return tournament


def _check_file(tournament: TrfTournament) -> None:
    """What no single line shows: players named who do not exist, two pairing-allocated byes
    in one round, scores that contradict the rounds played."""
    numbers = {player.number for player in tournament.players}
    records: tuple[TrfProhibition | TrfBye | TrfRoundRating, ...]
    records = (*tournament.prohibitions, *tournament.byes, *tournament.round_ratings)
    for record in records:
        for named, column in zip(record.players, record.columns, strict=False):
            if named not in numbers:
                raise TrfError(record.line, column, f"player {named} does not exist")
    allocated: dict[int, int] = {}
    for player in tournament.players:
        for index, cell in enumerate(player.rounds):
            if cell.result is not TrfResult.PAIRING_BYE:
                continue
            if index in allocated:
                raise TrfError(
                    player.line,
                    FIRST_CELL + 8 + index * CELL_WIDTH,
                    f"a second pairing-allocated bye in round {index + 1} "
                    f"(player {allocated[index]} has one)",
                )
            allocated[index] = player.number
    played = rounds_played(tournament)
    for player in tournament.players:
        _check_points(player, played)


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
    for bye in tournament.byes:
        numbers = " ".join(f"{number:4d}" for number in bye.players)
        lines.append(f"240 {bye.kind.value} {bye.round_number:03d} {numbers}")
    lines.extend([FLAG_LINE] if tournament.per_round_ratings else [])
    lines.extend(format_round_rating(record) for record in tournament.round_ratings)
    for record in tournament.accelerations:
        lines.append(
            f"250      {float(record.points):4.1f} {record.first_round:03d} "
            f"{record.last_round:03d} {record.first_player:4d} {record.last_player:4d}"
        )
    for prohibition in tournament.prohibitions:
        numbers = " ".join(f"{number:4d}" for number in prohibition.players)
        if prohibition.first is not None:
            last = prohibition.last if prohibition.last is not None else 999
            lines.append(f"260 {prohibition.first:03d} {last:03d} {numbers}")
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


def rounds_played(tournament: TrfTournament) -> int:
    """The rounds already played: up to the last round in which anybody was paired, and every
    round before a recorded cell (bbpPairings' reading: a cell is either a round played or the
    round being paired); when every player has a cell for the round after those, it was played
    (nobody was paired in it)."""
    played = 0
    for player in tournament.players:
        if player.rounds:
            played = max(played, len(player.rounds) - 1)
        for index in range(len(player.rounds) - 1, played - 1, -1):
            if player.rounds[index].is_paired:
                played = max(played, index + 1)
                break
    if tournament.players and all(len(player.rounds) > played for player in tournament.players):
        played += 1
    return played


def next_round_number(tournament: TrfTournament) -> int:
    """The round to pair: the one after :func:`rounds_played`."""
    return rounds_played(tournament) + 1


def infer_initial_colour(tournament: TrfTournament) -> Colour | None:
    """The initial colour when no line gives it: in the first round in which anybody received a
    colour, the colour of the highest-ranked player paired in that round or before (the second
    one's reversed, and so on, when he received none). None before any colour was given."""
    first = min(
        (
            index
            for player in tournament.players
            for index, cell in enumerate(player.rounds)
            if cell.colour is not None
        ),
        default=None,
    )
    if first is None:
        return None
    position = 0
    for player in sorted(tournament.players, key=lambda player: player.number):
        if not any(cell.is_paired for cell in player.rounds[: first + 1]):
            continue
        cell = player.rounds[first] if len(player.rounds) > first else None
        if cell is not None and cell.colour is not None:
            return cell.colour if position % 2 == 0 else cell.colour.opposite
        position += 1
    return None


def _record(cell: TrfCell) -> RoundRecord:
    if cell.result in PLAYED_POINTS:
        assert cell.opponent is not None
        return RoundRecord(
            kind=RoundKind.PLAYED,
            points=PLAYED_POINTS[cell.result],
            opponent=PlayerNumber(cell.opponent),
            colour=cell.colour,
        )
    points = UNPLAYED_POINTS[cell.result]
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
# Usual results and the unusual ones an arbiter may give (a player penalised: 1/2-0, 0-1/2,
# 0-0; both forfeited); never more than a point for one game, and never one side played and
# the other forfeited.
_AGREEING = {("1", "0"), ("0", "1"), ("=", "="), ("=", "0"), ("0", "="), ("0", "0")}
_AGREEING |= {("+", "-"), ("-", "+"), ("-", "-")}


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
    """The players' states before ``round_number``. A player is present when he has no cell
    for the round and no ``240`` bye record for it; with ``replay`` (a round already paired, checked
    again) only a player paired in that round is present.

    Raises:
        TrfError: as :func:`players_for_next_round`.
    """
    played = round_number - 1
    by_number = {player.number: player for player in tournament.players}
    blank = TrfCell(opponent=None, colour=None, result=TrfResult.BLANK)
    excused = {
        number
        for bye in tournament.byes
        if bye.round_number == round_number
        for number in bye.players
    }
    virtual = accelerations(tournament)
    result: list[SwissPlayer] = []
    for position, player in enumerate(tournament.players):
        line = player.line or position + 1
        cells = list(player.rounds[:played]) + [blank] * (played - len(player.rounds[:played]))
        for index, cell in enumerate(cells):
            if cell.opponent is None:
                continue
            column = FIRST_CELL + 1 + index * CELL_WIDTH
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
        if replay:
            present = upcoming is not None and upcoming.is_paired
        else:
            present = upcoming is None and player.number not in excused
        result.append(
            SwissPlayer(
                number=PlayerNumber(player.number),
                history=tuple(_record(cell) for cell in cells),
                present=present,
                acceleration=virtual.get(player.number, ())[:round_number],
            )
        )
    return result


def accelerations(tournament: TrfTournament) -> Mapping[int, tuple[Fraction, ...]]:
    """Each player's virtual points per round: the ``250`` records, else the Baku method's
    when a ``192`` record asks for it (C.04.5.1, for the file's players and rounds)."""
    records = tournament.accelerations
    if not records and tournament.baku and tournament.total_rounds is not None:
        records = baku_records(len(tournament.players), tournament.total_rounds)
    return virtual_points(records, [player.number for player in tournament.players])


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
    numbers = pairing_numbers(tournament, round_number)
    players = relabel_players(players_before(tournament, round_number, replay=replay), numbers)
    forbidden = frozenset(
        frozenset((numbers[a], numbers[b]))
        for prohibition in tournament.prohibitions
        if prohibition.applies_to(round_number)
        for a in prohibition.players
        for b in prohibition.players
        if a != b
    )
    pairing = pair_round(
        players,
        round_number=round_number,
        total_rounds=tournament.total_rounds,
        forbidden=forbidden,
        initial_colour=(
            tournament.initial_colour or infer_initial_colour(tournament) or Colour.WHITE
        ),
    )
    return relabel_pairing(pairing, {new: old for old, new in numbers.items()})


def format_pairing(pairing: RoundPairing) -> str:
    """The FIDE engines' output: the number of pairs (bye included), then ``white black``
    per board, the bye as ``number 0``."""
    lines = [str(len(pairing.boards) + (pairing.bye is not None))]
    lines.extend(f"{board.white} {board.black}" for board in pairing.boards)
    if pairing.bye is not None:
        lines.append(f"{pairing.bye} 0")
    return "\n".join(lines) + "\n"


def run_pair(
    trf: str | bytes, *, fide_mode: bool = True, per_round_ratings: bool = False
) -> tuple[int, str]:
    """Pair the next round of a TRF (its text, or its bytes: UTF-8): ``(0, pairing)``,
    ``(1, reason)`` when no legal pairing exists, ``(3, message)`` for invalid input (the
    message names line and column), including what FIDE mode does not allow
    (:mod:`rules.swiss.fide_mode`)."""
    try:
        tournament = parse_trf(decode_trf(trf) if isinstance(trf, bytes) else trf)
        if per_round_ratings:
            tournament = replace(tournament, per_round_ratings=True)
        if fide_mode:
            check_fide_mode(tournament)
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
