"""The tie-break list of a TRF-2026 file (``202`` or ``212`` record) read into C.07 codes and
their modifiers (FIDE Handbook C.07, 2026 text, Art. 5 and 14).

A code may carry modifiers, each after a ``/`` (the Handbook writes ``-``, which is read too):

=========  ============================================================================
``/Cn``    Cut-n (Art. 14.1, 14.2): the n least significant values left out
``/Mn``    Median-n (Art. 14.3, 14.4): the n least and the n most significant ones
``/L+n``   Koya's limit (Art. 14.5) raised by n half-points (``/L-n`` lowers it)
``/P``     forfeits counted as games against the scheduled opponent (DE: Art. 6.1.1;
           Buchholz and Sonneborn-Berger: the provision Art. 16.6 allows)
``/F``     AOB over the opponents' Fore Buchholz instead of their Buchholz (Art. 8.2)
=========  ============================================================================

The team tie-breaks (Art. 12 and 13: ``MPvGP``, ``ESB`` and its variants, ``EDE`` and its
combinations, ``SSSC``, ``BC``, ``TBR``, ``BBE``), a team point type (``:MP``, ``:GP``) and
self-defined tie-breaks (``OTHER_...``) are refused: the file's cells record individual games.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace

from rules.swiss.trf_model import TrfError, TrfTieBreakLine

__all__ = ["Code", "TieBreak", "parse_tiebreaks"]


class Code(enum.Enum):
    """The individual tie-breaks of C.07 Art. 5, by their codes."""

    PTS = "PTS"
    DE = "DE"
    WIN = "WIN"
    WON = "WON"
    BPG = "BPG"
    BWG = "BWG"
    PS = "PS"
    REP = "REP"
    STD = "STD"
    TPN = "TPN"
    BH = "BH"
    AOB = "AOB"
    FB = "FB"
    SB = "SB"
    KS = "KS"
    ARO = "ARO"
    TPR = "TPR"
    PTP = "PTP"
    APRO = "APRO"
    APPO = "APPO"
    RTNG = "RTNG"


_ALIASES = {"GE": Code.REP}  # "Games one Elected to play", the 2023 name of REP (Art. 7.6)

_TEAM = {
    **dict.fromkeys(("BC",), "12.1"),
    **dict.fromkeys(("TBR",), "12.2"),
    **dict.fromkeys(("BBE",), "12.3"),
    **dict.fromkeys(("MPVGP",), "13.1"),
    **dict.fromkeys(("ESB", "EMMSB", "EMGSB", "EGMSB", "EGGSB"), "13.2"),
    **dict.fromkeys(("EDE", "EDEBT", "EDEBB", "EDET", "EDEB"), "13.3"),
    **dict.fromkeys(("SSSC",), "13.4"),
}

_CUTS = {
    Code.PS: "C",
    Code.BH: "CM",
    Code.FB: "CM",
    Code.SB: "CM",
    Code.ARO: "CM",
    Code.TPR: "CM",
    Code.PTP: "CM",
}
_FORFEITS_PLAYED = {Code.DE, Code.BH, Code.FB, Code.SB}


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One entry of the tie-break list: a code, its modifiers, and where the file wrote it."""

    code: Code
    cut_low: int = 0
    cut_high: int = 0
    text: str = ""
    column: int = 0
    limit: int = 0
    """KS: half-points added to the limit of half the rounds' points (``/L+n``, ``/L-n``)."""
    forfeits_played: bool = False
    """``/P``: a forfeit counts as a game against the scheduled opponent."""
    fore: bool = False
    """AOB ``/F``: the opponents' Fore Buchholz."""

    @property
    def label(self) -> str:
        return self.text or self.code.value


_TOKEN = re.compile(r"[^,\s]+")
_NAME = re.compile(r"[A-Z_]+(?::[A-Z]+)?")
_MODIFIER = re.compile(r"[/-](L[+-]\d+|[A-Z]\d*)")


def _code(name: str, line: int, column: int) -> Code:
    code = _ALIASES.get(name) or next((c for c in Code if c.value == name), None)
    if code is not None:
        return code
    if name in _TEAM:
        problem = f"{name} is a team tie-break (C.07 Art. {_TEAM[name]}); the file is individual"
    elif ":" in name:
        problem = f"{name}: a point type (:MP, :GP) is for team events"
    elif name.startswith("OTHER"):
        problem = f"{name} is self-defined (C.07 Art. 4.1); its rule is not in the file"
    else:
        known = ", ".join(c.value for c in Code)
        problem = f"tie-break {name} is not implemented (these are: {known})"
    raise TrfError(line, column, problem)


def _modified(tiebreak: TieBreak, modifier: str, line: int) -> TieBreak:
    """``tiebreak`` with one more modifier, if its code takes it."""
    code, kind, count = tiebreak.code, modifier[:1], modifier[1:]
    if kind in _CUTS.get(code, "") and count.isdigit():
        high = tiebreak.cut_high + (int(count) if kind == "M" else 0)
        return replace(tiebreak, cut_low=tiebreak.cut_low + int(count), cut_high=high)
    if kind == "L" and code is Code.KS and count[:1] in "+-" and count[1:].isdigit():
        return replace(tiebreak, limit=tiebreak.limit + int(count))
    if kind == "P" and not count and code in _FORFEITS_PLAYED:
        return replace(tiebreak, forfeits_played=True)
    if kind == "F" and not count and code is Code.AOB:
        return replace(tiebreak, fore=True)
    raise TrfError(
        line,
        tiebreak.column,
        f"{tiebreak.text}: modifier {modifier!r} is not one {code.value} takes",
    )


def _parse_code(token: str, line: int, column: int) -> TieBreak:
    upper = token.upper()
    name = _NAME.match(upper)
    if name is None:
        raise TrfError(line, column, f"{token}: a tie-break code starts with letters")
    tiebreak = TieBreak(_code(name.group(), line, column), text=token, column=column)
    position = name.end()
    while position < len(upper):
        modifier = _MODIFIER.match(upper, position)
        if modifier is None:
            raise TrfError(line, column + position, f"{token}: cannot read a modifier here")
        tiebreak = _modified(tiebreak, modifier.group(1), line)
        position = modifier.end()
    return tiebreak


def parse_tiebreaks(declaration: TrfTieBreakLine) -> tuple[TieBreak, ...]:
    """The tie-break list of a ``202`` or ``212`` record, the points first.

    Raises:
        TrfError: a code not implemented, or a modifier it does not take, at its column.
    """
    found = [
        _parse_code(match.group(), declaration.line, match.start() + 1)
        for match in _TOKEN.finditer(declaration.text, 4)
    ]
    if not declaration.with_points:
        found.insert(0, TieBreak(Code.PTS, text="PTS"))
    return tuple(found)
