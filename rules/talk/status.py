"""The reply to ``status`` (rules 5): the offers by number, the agreement, the duty and the
deadlines; the match week's other notices are in :mod:`rules.talk.notices`."""

from __future__ import annotations

import datetime as dt

from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH, Words
from rules.talk.notices import _offer_line, _offers_made_line, describe_time, fit
from rules.week.calendar import label_time
from rules.week.negotiation import Negotiation, Phase

__all__ = ["status_text"]


def status_text(
    negotiation: Negotiation,
    *,
    player: PlayerId,
    now: dt.datetime,
    ruleset: Ruleset,
    words: Words = ENGLISH,
) -> str:
    """The reply to ``status``: the offers by number, the agreement, the duty and the deadlines."""
    week = negotiation.week
    lines = [
        words.gettext("Match %(match)s: you against %(opponent)s.")
        % {"match": negotiation.match_id, "opponent": negotiation.opponent_of(player)}
    ]
    phase = negotiation.phase
    if phase is Phase.AGREED and negotiation.agreement is not None:
        lines.append(
            words.gettext("Agreed time: %(time)s.")
            % {"time": describe_time(negotiation.agreement.time, now=now, words=words)}
        )
        if negotiation.change is not None:
            lines.append(
                words.gettext("%(by)s asked to move it to %(time)s.")
                % {
                    "by": negotiation.change.by,
                    "time": label_time(negotiation.change.time, words),
                }
            )
    elif phase is Phase.TIED:
        lines.append(words.gettext("Ruled a tied match; nothing to schedule."))
    elif phase is Phase.AWAITING_CHOICE and negotiation.ruling is not None:
        lines.append(
            words.gettext("%(chooser)s chooses the time (rules 5.5, 5.9).")
            % {"chooser": negotiation.ruling.chooser}
        )
    offers = [o for o in negotiation.offers if not o.is_withdrawn]
    if offers and phase is not Phase.AGREED:
        lines.append(words.gettext("Offers:"))
        lines.extend(_offer_line(o, now=now, words=words) for o in offers)
    if phase is Phase.OPEN and now < week.offers_close:
        lines.append(_offers_made_line(negotiation, player, now=now, ruleset=ruleset, words=words))
    lines.append(
        words.gettext("Match must be completed by %(end)s.")
        % {"end": describe_time(week.end, now=now, words=words)}
    )
    return fit("\n".join(lines), words=words)
