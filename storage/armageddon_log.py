"""An armageddon procedure rebuilt by replaying its stored inputs (rules 3.ix).

``armageddon_steps`` keeps the inputs the procedure was given (start, sealed bids and choices,
deadline reveals, a TD's decision), in order; replaying them through
:class:`rules.stages.armageddon.ArmageddonProcedure` rebuilds it, so the stored record and the
rules can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.stages.armageddon import ArmageddonProcedure
from storage.models_stages import ArmageddonStepRow

__all__ = ["replay_procedure"]


def replay_procedure(
    steps: Iterable[ArmageddonStepRow], players: tuple[PlayerId, PlayerId], ruleset: Ruleset
) -> ArmageddonProcedure:
    """The procedure of a match between ``players`` after ``steps`` (in order)."""
    proc: ArmageddonProcedure | None = None
    for step in steps:
        if step.kind == "start":
            proc, _ = ArmageddonProcedure.start(players, now=step.at, ruleset=ruleset)
            continue
        if proc is None:
            raise ValueError(f"armageddon {step.armageddon_id}: step {step.seq} before its start")
        who = PlayerId(step.player or "")
        if step.kind == "bid":
            proc, _ = proc.submit_bid(who, step.value or "", salt=step.salt or "", now=step.at)
        elif step.kind == "rps":
            proc, _ = proc.submit_rps(who, step.value or "", salt=step.salt or "", now=step.at)
        elif step.kind == "reveal":
            proc, _ = proc.reveal(now=step.at)
        elif step.kind == "td":
            proc, _ = proc.td_decide(who, now=step.at)
    if proc is None:
        raise ValueError("an armageddon procedure without its start")
    return proc
