"""Rules 7.3 on the desk: a player whose account the daily look found marked (or closed) on
Lichess, or whose new "cheat detected" games make the grounds of rules 2.2.3 (each game linked),
with a one-click disqualification through the one exit path (rules 8), as an engine mark (their
finished qualification games go to the opponents, rules 8.1.2) or not, or a dismissal (the
player stays)."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.service.recheck import MARK_ACTION
from bot.service.services import Services
from bot.web.desk.decisions import Choice, Decision, Evidence, Ruling, player_names
from rules.core.states import PlayerStatus
from rules.talk.conduct import mark_words
from storage.uow import UnitOfWork

__all__ = ["MarkedAccounts"]


class MarkedAccounts:
    kind = "marked"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        active = {p.id for p in await uow.players.list(status=PlayerStatus.ACTIVE)}
        names = await player_names(uow)
        latest = {}
        for entry in await uow.audit.list(actions=(MARK_ACTION,)):
            if entry.player in active:
                latest[entry.player] = entry
        out = []
        for player, entry in latest.items():
            name = names.get(player, player)
            marks = list(entry.details.get("marks", []))
            games = dict(entry.details.get("cheat_games") or {})
            out.append(
                Decision(
                    kind=self.kind,
                    key=f"{player}:{entry.id}",
                    title=f"Disqualify {name}? (rules 7.3)",
                    summary=f"The daily look found {name}'s account {mark_words(marks)}. A player "
                    "marked during the championship is disqualified (rules 7.3); an engine mark "
                    "also gives their finished qualification games to the opponents (rules 8.1.2).",
                    at=entry.at,
                    evidence=(
                        Evidence(
                            entry.at, f"Lichess account {name}", f"https://lichess.org/@/{name}"
                        ),
                        *(
                            Evidence(
                                dt.datetime.fromisoformat(at),
                                f'game {game}, ended as "cheat detected" (rules 2.2.3)',
                                f"https://lichess.org/{game}",
                            )
                            for game, at in games.items()
                        ),
                    ),
                    choices=(
                        Choice("engine", f"Disqualify {name}: engine mark", True, True),
                        Choice("other", f"Disqualify {name}: no engine mark", True, True),
                        Choice("dismiss", f"Dismiss: {name} stays", True),
                    ),
                    link=f"/players/{player}",
                )
            )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        player = ruling.key.split(":", 1)[0]
        if ruling.choice == "dismiss":
            await uow.audit.record(
                at=ruling.now,
                actor=ruling.actor,
                action="account.mark_dismissed",
                player=player,
                reason=ruling.reason,
            )
            return f"{player} stays in the championship."
        if ruling.choice not in ("engine", "other"):
            raise OperationError("pick one of the buttons")
        preview = await services.exits.exit_player(
            uow,
            player=player,
            kind="disqualification",
            reason=f"rules 7.3: marked on Lichess; {ruling.reason}",
            engine_mark=ruling.choice == "engine",
            now=ruling.now,
            actor=ruling.actor,
        )
        return f"{preview.username} is disqualified ({preview.stage} stage)."
