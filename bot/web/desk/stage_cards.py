"""The desk's cards for the championship's own steps: a round whose pairings wait for a TD's
approval, and a complete stage whose next stage a TD starts, with the TDs' choices when too few
qualify for the Candidates (rules 1.3, 5.10)."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.service.services import Services
from bot.service.stages.small_field import Shortage, SmallFieldChoice, choose, shortage
from bot.views import matches as views
from bot.web.core import whole_number
from bot.web.desk.decisions import Choice, Decision, Ruling
from rules.core.errors import RulesError
from rules.core.ruleset import StageKind
from rules.core.states import RoundState, StageState
from rules.stages.formats import fixed_stages, next_stage, stage_format
from storage.models import TournamentRow
from storage.uow import UnitOfWork

__all__ = ["RoundApprovals", "StageStarts"]


class _OfTheTournament:
    """Cards about the current tournament: none before there is one."""

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        tournament = await uow.tournaments.current()
        return [] if tournament is None else await self.cards(uow, services, tournament)

    async def cards(
        self, uow: UnitOfWork, services: Services, tournament: TournamentRow
    ) -> list[Decision]:
        raise NotImplementedError


class RoundApprovals(_OfTheTournament):
    """Rounds whose pairings wait for a TD (state ``proposed``): approve puts them into play.
    With ``tournament.publish_fixed_rounds`` (the default) the later stages' rounds, which the
    rules fix, go out by themselves on their day and are not listed.
    Of a stage whose rounds were all proposed at its start (the Candidates' Berger tables),
    only the next one: the later ones cannot be published before it (rules 4.1-4.2)."""

    kind = "round"

    async def cards(
        self, uow: UnitOfWork, services: Services, tournament: TournamentRow
    ) -> list[Decision]:
        names = {p.id: p.username for p in await uow.players.list()}
        by_itself = services.config.tournament.publish_fixed_rounds
        out = []
        for stage in await uow.tournaments.stages(tournament.id):
            if by_itself and stage.kind in fixed_stages(services.config.rules):
                continue  # the daily job publishes it on its day: nothing for the TDs to do
            proposed = [
                r for r in await uow.tournaments.rounds(stage.id) if r.state == RoundState.PROPOSED
            ]
            for rnd in sorted(proposed, key=lambda r: r.number)[:1]:
                matches = await uow.matches.for_round(rnd.id)
                if not matches:
                    continue  # still being paired
                table = tuple(
                    (
                        str(m.board),
                        names.get(m.white_first, m.white_first),
                        "bye" if m.black_first is None else names.get(m.black_first, m.black_first),
                    )
                    for m in matches
                )
                out.append(
                    Decision(
                        kind=self.kind,
                        key=str(rnd.id),
                        title=f"Approve pairings: {views.STAGE_LABELS.get(stage.kind, stage.kind)}"
                        f" round {rnd.number}",
                        summary=f"{len(matches)} boards; approving publishes them to the players.",
                        at=None,
                        choices=(Choice("approve", "Approve and publish"),),
                        link="/desk/rounds",
                        table=table,
                    )
                )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        round_id = whole_number(ruling.key)
        if ruling.choice != "approve" or round_id is None:
            raise OperationError("a round can only be approved here")
        rnd = await uow.tournaments.round(round_id)
        if rnd is None or rnd.state != RoundState.PROPOSED:
            raise OperationError("this round is not waiting for approval any more")
        stage = await uow.tournaments.stage_by_id(rnd.stage_id)
        assert stage is not None
        # The same operations as `acwc round approve` / `acwc stage round approve`: byes settled,
        # the break between stages honoured, then publication.
        if not stage_format(StageKind(stage.kind)).fixed_rounds:  # a Swiss: paired round by round
            await services.qualification.approve_proposed(uow, now=ruling.now, actor=ruling.actor)
        else:
            await services.stage_rounds.approve_round(
                uow,
                stage=StageKind(stage.kind),
                number=rnd.number,
                now=ruling.now,
                actor=ruling.actor,
            )
        end = rnd.week_end
        return f"Round {rnd.number} approved and published" + (
            f"; the week ends {end:%a %d %b %H:%M} UTC." if end else "."
        )


class StageStarts(_OfTheTournament):
    """A stage is complete: the TDs start the next one (as ``acwc stage advance``). When too
    few qualify to fill the Candidates' pools (a withdrawal, a small field), the regulations do
    not say what happens (rules 1.3, 5.10): the card puts the choice to the TDs, and nothing
    stops meanwhile."""

    kind = "stage"

    async def cards(
        self, uow: UnitOfWork, services: Services, tournament: TournamentRow
    ) -> list[Decision]:
        progression = services.progression
        current = StageKind(tournament.current_stage)
        stage = await uow.tournaments.stage(tournament.id, current.value)
        if stage is None or stage.state == StageState.COMPLETE:
            return []
        try:
            if not (await progression.progress(uow, current)).complete:
                return []
        except (OperationError, RulesError):
            return []
        following = next_stage(current, services.config.rules)
        label = views.STAGE_LABELS.get(current.value, current.value)
        key = f"{current.value}:{stage.id}"
        if following is None:
            return [
                Decision(
                    kind=self.kind,
                    key=key,
                    title=f"{label} complete: close the championship",
                    summary="Every match is decided. Closing records the final placement.",
                    at=None,
                    choices=(Choice("advance", "Close the championship"),),
                )
            ]
        next_label = views.STAGE_LABELS.get(following.value, following.value)
        choices: tuple[Choice, ...] = (Choice("advance", f"Start the {next_label}"),)
        summary = f"Every match of the {label} is decided: the {next_label} can start."
        title = f"{label} complete: start the {next_label}"
        short = await shortage(uow, progression)
        if short is not None:
            title, summary, choices = _small_field_card(short)
        return [
            Decision(
                kind=self.kind,
                key=key,
                title=title,
                summary=summary,
                at=None,
                choices=choices,
                link="/standings",
            )
        ]

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        if ruling.choice in set(SmallFieldChoice):
            report = await choose(
                uow,
                services.progression,
                SmallFieldChoice(ruling.choice),
                reason=ruling.reason,
                now=ruling.now,
                actor=ruling.actor,
            )
        elif ruling.choice == "advance":
            report = await services.progression.advance(uow, now=ruling.now, actor=ruling.actor)
        else:
            raise OperationError("pick one of the buttons")
        return report.text().splitlines()[0]


SMALL_FIELD_LABELS = {
    SmallFieldChoice.SMALLER_POOLS: "Start the Candidates with smaller pools",
    SmallFieldChoice.FILL: "Fill the empty places from the next places",
    SmallFieldChoice.END: "End the championship with the qualification",
}


def _small_field_card(short: Shortage) -> tuple[str, str, tuple[Choice, ...]]:
    """The card's title, words and buttons when too few qualify (rules 1.3, 5.10)."""
    have, needed = len(short.qualifiers), short.needed
    fill = (
        f"fill the {short.missing} empty place(s) from the next places: every place of the "
        "standings is taken, so the next are the players registered after the qualification's "
        f"field was fixed ({len(short.reserves)} waiting, best seed rating first)"
        if SmallFieldChoice.FILL in short.choices
        else "fill the empty places from the next places: nobody is left to take them "
        f"(every place of the standings is taken; {len(short.reserves)} reserve(s) registered)"
    )
    summary = (
        f"The pools need {needed} qualifiers (rules 3.v.4) but only {have} players are still "
        "in the qualification. The regulations leave this to the TDs (rules 1.3, 5.10): "
        "start with smaller pools (every qualifier, placed by the regulations' table, an odd "
        f"pool giving a bye each round); {fill}; or end the championship with the "
        "qualification, its standings the final placement. Until you choose, this card stays "
        "and nothing else stops."
    )
    choices = tuple(
        Choice(c.value, SMALL_FIELD_LABELS[c], needs_reason=True) for c in short.choices
    )
    return f"Too few qualifiers for the Candidates: {have} of {needed}", summary, choices
