"""The rules page's summary: the settings this tournament runs with, in the reader's words."""

from __future__ import annotations

from bot.config import Config
from rules.core.ruleset import Tiebreak
from rules.core.scoring import format_points
from rules.core.words import Words
from rules.stages.formats import stage_name
from rules.talk.games import time_control_text
from rules.week.conduct import no_show_rule

__all__ = ["Section", "rules_summary"]

Section = tuple[str, list[tuple[str, str]]]


def _tiebreak(tiebreak: Tiebreak, words: Words) -> str:
    if tiebreak is Tiebreak.ARMAGEDDON:
        return words.gettext("armageddon")
    if tiebreak is Tiebreak.REPEAT_THEN_ARMAGEDDON:
        return words.gettext("repeat then armageddon")
    return words.gettext("none")


def _matches(config: Config, words: Words) -> Section:
    lines = []
    for kind in ("qualification", "candidates", "semifinal", "final", "third_place"):
        f = getattr(config.rules.formats, kind)
        games = words.ngettext("%(num)d game", "%(num)d games", f.games) % {"num": f.games}
        if f.clinch_at is not None:
            games = words.gettext("%(games)s, decided at %(points)s") % {
                "games": games,
                "points": format_points(f.clinch_at),
            }
        said = words.gettext("%(games)s; tie-break: %(tiebreak)s") % {
            "games": games,
            "tiebreak": _tiebreak(f.tiebreak, words),
        }
        lines.append((stage_name(kind, words), said))
    return (words.gettext("Matches"), lines)


def _scheduling(config: Config, words: Words) -> Section:
    o = config.rules.offers
    hours = words.gettext("at least %(hours)s hours") % {
        "hours": f"{o.min_gap.total_seconds() / 3600:g}"
    }
    return (
        words.gettext("Scheduling (all times UTC)"),
        [
            (
                words.gettext("Offers"),
                words.gettext("at least %(count)s start times by the offers deadline")
                % {"count": o.required_offers},
            ),
            (words.gettext("Between offers"), hours),
            (
                words.gettext("Per date"),
                words.gettext("at most %(count)s offers on one date") % {"count": o.max_per_date},
            ),
            (
                words.gettext("Reply"),
                words.gettext("within %(hours)s hours")
                % {"hours": f"{o.reply_within.total_seconds() / 3600:g}"},
            ),
        ],
    )


def _conduct(config: Config, words: Words) -> Section:
    c = config.rules.conduct
    said = no_show_rule(c, words)
    return (
        words.gettext("Conduct"),
        [
            (words.gettext("No-show"), said[:1].upper() + said[1:]),
            (
                words.gettext("Break"),
                words.gettext("one break of at most %(minutes)s minutes")
                % {"minutes": f"{c.break_length.total_seconds() / 60:g}"},
            ),
            (
                words.gettext("Forfeits"),
                words.gettext("%(count)s forfeits and a player is out")
                % {"count": c.forfeit_limit},
            ),
        ],
    )


def _armageddon(config: Config, words: Words) -> Section:
    a = config.rules.armageddon
    return (
        words.gettext("Armageddon"),
        [
            (
                words.gettext("Black"),
                words.gettext("%(clock)s and draw odds")
                % {"clock": f"{a.black_seconds // 60}:{a.black_seconds % 60:02d}"},
            ),
            (
                words.gettext("White"),
                words.gettext("bids at least %(seconds)s seconds; the lowest bid plays White")
                % {"seconds": a.min_white_seconds},
            ),
        ],
    )


def rules_summary(config: Config, words: Words) -> list[Section]:
    """The rules page's sections: each a heading and its lines (a setting, its value)."""
    games = (
        words.gettext("Games"),
        [
            (
                words.gettext("Time control"),
                words.gettext("%(control)s on Lichess")
                % {"control": time_control_text(config.rules.time_control, words)},
            )
        ],
    )
    return [
        _matches(config, words),
        games,
        _scheduling(config, words),
        _conduct(config, words),
        _armageddon(config, words),
    ]
