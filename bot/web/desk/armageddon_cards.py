"""The desk's armageddon cards (rules 3.ix), settled by the operations the command line's
armageddon rulings call: the TDs name White when neither player took part in rock-paper-scissors
(``Armageddons.td_decide``), and record the armageddon game by hand when it was not seen on
Lichess (``ArmageddonGames.record``), each with the bids and choices as evidence."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.errors import OperationError
from bot.service.services import Services
from bot.views.bracket import armageddon_view
from bot.web.core import whole_number
from bot.web.desk.decisions import Choice, Decision, Evidence, Ruling, player_names
from rules.core.states import MatchState
from rules.stages.armageddon import Phase
from storage.uow import UnitOfWork

__all__ = ["ArmageddonDecisions"]

GAME_RESULTS = ("1-0", "0-1", "1/2-1/2")


def _evidence(data: dict[str, Any], names: dict[str, str]) -> tuple[Evidence, ...]:
    def name(p: str | None) -> str:
        return "-" if p is None else names.get(p, p)

    players = data["players"]
    sealed = ", ".join(
        f"{name(p)} {'yes' if made else 'no'}"
        for p, made in zip(players, data["bids_in"], strict=False)
    )
    lines = [f"bids due by {data['bid_deadline']}; sealed bid made: {sealed}"]
    if data["bids"] is not None:
        lines.append(f"bids revealed: {data['bids']}")
    for i, pair in enumerate(data["rps_history"], 1):
        lines.append(f"rock-paper-scissors round {i}: {pair[0] or 'none'} v {pair[1] or 'none'}")
    if data["white"]:
        lines.append(
            f"White: {name(data['white'])} with {data['white_seconds']} s; "
            f"Black: {name(data['black'])} with {data['black_seconds']} s and draw odds "
            "(rules 3.ix.1.1)"
        )
    lines.extend(f"[{f['severity']}] {f['message']}" for f in data["findings"] or ())
    return tuple(Evidence(at=None, text=line) for line in lines)


class ArmageddonDecisions:
    """An armageddon whose White the TDs name (phase ``needs_td``), and, as a ruling the TDs
    may make but need not, the armageddon game recorded by hand once White is known."""

    kind = "armageddon"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        names = await player_names(uow)
        out = []
        for row in await uow.matches.all():
            if row.state != MatchState.ARMAGEDDON:
                continue
            data = await armageddon_view(uow, row.id, services.config.rules)
            if data is None:
                continue
            a, b = data["players"]
            label = f"{names.get(a, a)} v {names.get(b, b)}"
            if data["phase"] == Phase.NEEDS_TD.value:
                out.append(
                    Decision(
                        kind=self.kind,
                        key=f"{row.id}:white",
                        title=f"Armageddon of match {row.id} ({label}): name White",
                        summary="Neither player chose in rock-paper-scissors: the TDs decide "
                        "who plays White (rules 3.ix.1.3).",
                        at=None,
                        match_id=row.id,
                        evidence=_evidence(data, names),
                        choices=tuple(
                            Choice(f"white:{p}", f"White: {names.get(p, p)}") for p in (a, b)
                        ),
                        link=f"/match/{row.id}",
                    )
                )
            elif data["white"] and not data["winner"]:
                white, black = (
                    names.get(data["white"], data["white"]),
                    names.get(data["black"], data["black"]),
                )
                out.append(
                    Decision(
                        kind=self.kind,
                        key=f"{row.id}:game",
                        title=f"Armageddon game of match {row.id} ({label})",
                        summary="If the game was played but not seen on Lichess, record it: "
                        f"{white} has White, {black} Black with draw odds (a draw wins for "
                        "Black, rules 3.ix.1.1).",
                        at=None,
                        match_id=row.id,
                        evidence=_evidence(data, names),
                        choices=(
                            Choice("1-0", f"{white} (White) won", True, True),
                            Choice("0-1", f"{black} (Black) won", True, True),
                            Choice("1/2-1/2", f"Drawn: {black} wins", True, True),
                        ),
                        link=f"/match/{row.id}",
                        optional=True,
                    )
                )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        match_id = whole_number(ruling.key.split(":", 1)[0])
        if match_id is None:
            raise OperationError("there is no such armageddon")
        if ruling.choice.startswith("white:"):
            return await services.armageddons.td_decide(
                uow,
                match_id=match_id,
                white=ruling.choice.removeprefix("white:"),
                now=ruling.now,
                actor=ruling.actor,
            )
        if ruling.choice not in GAME_RESULTS:
            raise OperationError("pick one of the buttons")
        winner = await services.armageddon_games.record(
            uow,
            match_id=match_id,
            result=ruling.choice,
            reason=ruling.reason,
            now=ruling.now,
            actor=ruling.actor,
        )
        return f"Match {match_id}: {winner} wins the armageddon game."
