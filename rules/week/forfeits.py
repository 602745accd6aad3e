"""Forfeits in two different matches lead to disqualification (rules 6.5).

The bot only proposes: a TD confirms each disqualification (rules 1.3-4), and may waive a forfeit
record (rules 5.10) so that it no longer counts.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable
from dataclasses import dataclass

from rules.core.errors import RulesError
from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import Ruleset

__all__ = [
    "DisqualificationProposal",
    "ForfeitError",
    "ForfeitErrorReason",
    "ForfeitKind",
    "ForfeitRecord",
    "disqualifications_due",
]


class ForfeitKind(enum.Enum):
    """What was forfeited."""

    MATCH = "match"  # no-show or leaving (rules 6.3-4), or a TD's sanction (rules 1.4)
    GAME = "game"  # no rematch offered (rules 6.2), no offers by either player (rules 5.6)


class ForfeitErrorReason(enum.Enum):
    BAD_LIMIT = "bad_limit"


class ForfeitError(RulesError):
    def __init__(self, reason: ForfeitErrorReason, message: str) -> None:
        super().__init__(reason, message)
        self.reason: ForfeitErrorReason = reason


@dataclass(frozen=True, slots=True)
class ForfeitRecord:
    """``player`` was forfeited in ``match_id``. ``waived`` records do not count."""

    player: PlayerId
    match_id: MatchId
    kind: ForfeitKind
    at: dt.datetime | None = None
    waived: bool = False


@dataclass(frozen=True, slots=True)
class DisqualificationProposal:
    """A disqualification for a TD to confirm, with the matches that caused it."""

    player: PlayerId
    match_ids: tuple[MatchId, ...]
    text: str


def disqualifications_due(
    records: Iterable[ForfeitRecord],
    *,
    ruleset: Ruleset,
    already_disqualified: Iterable[PlayerId] = (),
) -> tuple[DisqualificationProposal, ...]:
    """Players forfeited in ``forfeit_limit`` (2) different matches (rules 6.5), by player id.

    Every unwaived record counts, game or match forfeit; several forfeits in one match count
    once ("in two different matches"). Players in ``already_disqualified`` are left out.
    Raises :class:`ForfeitError` if the configured limit is below 1.
    """
    limit = ruleset.conduct.forfeit_limit
    if limit < 1:
        raise ForfeitError(
            ForfeitErrorReason.BAD_LIMIT, f"The forfeit limit must be at least 1, not {limit}."
        )
    skip = frozenset(already_disqualified)
    matches: dict[PlayerId, set[MatchId]] = {}
    for record in records:
        if record.waived or record.player in skip:
            continue
        matches.setdefault(record.player, set()).add(record.match_id)
    out: list[DisqualificationProposal] = []
    for player in sorted(matches):
        ids = tuple(sorted(matches[player]))
        if len(ids) >= limit:
            listed = ", ".join(str(i) for i in ids)
            out.append(
                DisqualificationProposal(
                    player,
                    ids,
                    f"{player} was forfeited in {len(ids)} different matches ({listed}); rules"
                    " 6.5 disqualify them once a TD confirms.",
                )
            )
    return tuple(out)
