"""CLI commands of the later stages: advance, publish rounds, pools, standings, bracket,
armageddon, withdrawals and disqualifications (rules 3.vi-3.ix, 4.2, 8)."""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli import base
from bot.cli.base import Cli, CliError, check_actor, command, group, row_id, services, unit_of_work
from bot.cli.output import as_json, table
from bot.errors import OperationError
from bot.views.bracket import armageddon_view, knockout_view
from bot.views.candidates import candidates_view
from bot.views.tournament import require_tournament
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from rules.stages.armageddon import parse_bid
from rules.stages.formats import STAGES
from rules.talk import commands

LATER_STAGES = tuple(kind.value for fmt in STAGES if fmt.fixed_rounds for kind in fmt.members)
"""The stages whose rounds a TD approves with ``acwc stage round approve`` (the rules fix them)."""


def _subcommands(sub: Any, name: str, help_text: str) -> Any:
    """The subcommands of group ``name``, adding the group if no other module made it."""
    parser = sub.choices.get(name)
    if parser is None:
        return group(sub, name, help_text)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise CliError(f"`acwc {name}` is a command, not a group")  # pragma: no cover


def _by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", default="cli", help="the TD doing this (audit log)")


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")


def register(sub: Any) -> None:
    """Add this feature's subcommands."""
    stage = group(sub, "stage", "the later stages: Candidates, semifinals, finals")
    p = command(stage, "advance", stage_advance, "start the next stage once this one is complete")
    _by(p)
    _json(p)
    p = command(stage, "status", stage_status, "what the current stage still lacks")
    _json(p)
    p = command(stage, "show", stage_show, "show the Candidates pools or the knockout bracket")
    p.add_argument("which", choices=["candidates", "knockout"], help="what to show")
    _json(p)
    base.add_season_option(p)
    p = command(
        stage, "standings", stage_standings, "pool standings with crosstables, or the bracket"
    )
    p.add_argument("which", choices=["candidates", "knockout"], help="which stage")
    _json(p)
    base.add_season_option(p)
    p = command(stage, "sync", stage_sync, "create repeat weeks and armageddons owed by ties")
    _json(p)

    rounds = group(stage, "round", "rounds of the later stages")
    p = command(rounds, "approve", round_approve, "approve and publish a proposed round")
    p.add_argument("--stage", choices=LATER_STAGES, help="default: every started later stage")
    p.add_argument("--round", type=row_id, help="round number (default: the first proposed)")
    _by(p)

    arm = group(stage, "armageddon", "armageddon games (rules 3.ix)")
    p = command(arm, "show", armageddon_show, "show an armageddon (sealed values stay hidden)")
    p.add_argument("match_id", type=row_id, help="match number")
    _json(p)
    p = command(arm, "relay", armageddon_relay, "relay a player's bid or rock-paper-scissors")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--player", required=True, help="the player's Lichess username")
    p.add_argument("action", choices=["bid", "rps"], help="bid m:ss, or rps rock|paper|scissors")
    p.add_argument("value", help="the time offer for White (m:ss) or the hand")
    p = command(arm, "decide", armageddon_decide, "name White when neither played RPS")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--white", required=True, help="who plays White")
    _by(p)
    p = command(arm, "record", armageddon_record, "record the armageddon game by hand")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--result", required=True, help="1-0, 0-1 or 1/2-1/2, from White's view")
    p.add_argument("--reason", required=True, help="why (audit log)")
    _by(p)

    player = _subcommands(sub, "player", "registered players")
    for name, kind, words in (
        ("withdraw", "withdrawal", "withdraw a player (rules 8)"),
        ("disqualify", "disqualification", "disqualify a player (rules 8, 6.5, 7)"),
    ):
        p = command(player, name, player_exit, words)
        p.set_defaults(exit_kind=kind)
        p.add_argument("username", help="Lichess username")
        p.add_argument("--reason", required=True, help="why (audit log, shown to the TDs)")
        if kind == "disqualification":
            p.add_argument(
                "--engine-mark",
                action="store_true",
                help="an engine mark: their finished qualification games go to the opponents",
            )
        p.add_argument("--yes", action="store_true", help="apply without asking")
        _by(p)
        _json(p)


async def stage_advance(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found:
        async with found.db.uow() as uow:
            # Ties owe a repeat week or an armageddon even if the stage cannot advance yet.
            await found.knockout.sync(uow, now=cli.clock.now())
            await uow.commit()
        async with found.db.uow() as uow:
            report = await found.progression.advance(uow, now=cli.clock.now(), actor=actor)
            await uow.commit()
    if args.json:
        print(
            as_json(
                {
                    "left": report.left.value,
                    "entered": None if report.entered is None else report.entered.value,
                    "earliest_publication": report.earliest_publication,
                    "lines": list(report.lines),
                    "placement": list(report.placement),
                }
            )
        )
    else:
        print(report.text())
    return 0


async def stage_status(args: argparse.Namespace, cli: Cli) -> int:
    async with services(cli) as found, found.db.reads() as uow:
        tournament = await require_tournament(uow)
        current = StageKind(tournament.current_stage)
        prog = await found.progression.progress(uow, current)
    if args.json:
        print(
            as_json(
                {
                    "stage": current.value,
                    "complete": prog.complete,
                    "missing": [
                        {
                            "reason": m.reason.value,
                            "round": m.round,
                            "match": m.match_id,
                            "text": m.text,
                        }
                        for m in prog.missing
                    ],
                }
            )
        )
    elif prog.complete:
        print(f"{current.value}: complete; `acwc stage advance` starts the next stage")
    else:
        print(f"{current.value}: not complete")
        for m in prog.missing:
            print(f"  - {m.text}")
    return 0


def _print_pools(pools: list[dict[str, Any]]) -> None:
    for pool in pools:
        print(f"{pool['pool']} pool")
        print(
            table(
                ["#", "player", "seeded", "qualification place", "withdrawn"],
                [
                    (
                        p["number"],
                        p["player"],
                        p["seeded"],
                        p["qualification_place"],
                        "yes" if p["withdrawn"] else "",
                    )
                    for p in pool["players"]
                ],
            )
        )
        print()


def _print_standings(pools: list[dict[str, Any]]) -> None:
    for pool in pools:
        print(f"{pool['pool']} pool")
        print(
            table(
                [
                    "#",
                    "player",
                    "match pts",
                    "game pts",
                    "played",
                    "mutual MP",
                    "mutual GP",
                    "ahead by",
                ],
                [
                    (
                        r["rank"],
                        r["player"],
                        r["match_points"],
                        r["game_points"],
                        r["played"],
                        r["mutual_match_points"],
                        r["mutual_game_points"],
                        r["separated_by"],
                    )
                    for r in pool["standings"]
                ],
            )
        )
        cross = pool["crosstable"]
        heads = ["player", *[str(i) for i in range(1, len(cross["players"]) + 1)], "GP", "MP"]
        print(
            table(
                heads,
                [
                    (
                        f"{i}. {row['player']}",
                        *row["scores"],
                        row["game_points"],
                        row["match_points"],
                    )
                    for i, row in enumerate(cross["rows"], start=1)
                ],
            )
        )
        print()


def _print_bracket(data: dict[str, Any]) -> None:
    rows = []
    for m in data["matches"]:
        weeks = "; ".join(
            f"#{w['match']} wk{w['week']} {w['score'] or '-'} {w['state']}"
            + (f" (armageddon: {w['armageddon']['phase']})" if w["armageddon"] is not None else "")
            for w in m["weeks"]
        )
        rows.append(
            (
                m["slot"],
                f"{m['white_first']} ({m['white_source']})",
                f"{m['black_first']} ({m['black_source']})",
                weeks,
                m["winner"],
            )
        )
    print(table(["match", "white in game 1", "black in game 1", "weeks", "winner"], rows))
    placement = data["placement"]
    if any(placement):
        print()
        print(table(["place", "player"], [(i, p) for i, p in enumerate(placement, start=1)]))


async def _stage_data(cli: Cli, which: str, year: int | None = None) -> Any:
    async with base.season_reads(cli, year) as (uow, config):
        if which == "candidates":
            return await candidates_view(uow, config)
        return await knockout_view(uow, config.rules)


async def stage_show(args: argparse.Namespace, cli: Cli) -> int:
    data = await _stage_data(cli, args.which, args.season)
    if args.json:
        print(as_json(data))
    elif args.which == "candidates":
        _print_pools(data)
    else:
        _print_bracket(data)
    return 0


async def stage_standings(args: argparse.Namespace, cli: Cli) -> int:
    data = await _stage_data(cli, args.which, args.season)
    if args.json:
        print(as_json(data))
    elif args.which == "candidates":
        _print_standings(data)
    else:
        _print_bracket(data)
    return 0


async def stage_sync(args: argparse.Namespace, cli: Cli) -> int:
    async with services(cli) as found, found.db.uow() as uow:
        done = await found.knockout.sync(uow, now=cli.clock.now())
        await uow.commit()
    if args.json:
        print(as_json(done))
    else:
        print("\n".join(done) if done else "nothing to do")
    return 0


async def round_approve(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    if args.round is not None and args.stage is None:
        raise CliError("--round needs --stage")
    async with services(cli) as found, found.db.uow() as uow:
        if args.stage is not None:
            kinds = [StageKind(args.stage)]
        else:
            kinds = []
            tournament = await require_tournament(uow)
            for s in await uow.tournaments.stages(tournament.id):
                if s.kind in LATER_STAGES and s.state == StageState.ACTIVE:
                    kinds.append(StageKind(s.kind))
            if not kinds:
                raise CliError("no later stage has started: `acwc stage advance` first")
        published = []
        for kind in kinds:
            try:
                rnd = await found.stage_rounds.approve_round(
                    uow, stage=kind, number=args.round, now=cli.clock.now(), actor=actor
                )
            except OperationError:
                if len(kinds) == 1:
                    raise
                continue  # e.g. the final has a proposed repeat week but the third place not
            published.append((kind.value, rnd.number, rnd.week_start, rnd.week_end))
        if not published:
            raise CliError("no proposed round could be published")
        await uow.commit()
    for kind_value, number, start, end in published:
        print(
            f"published {kind_value} round {number}: {start:%a %Y-%m-%d} to"
            f" {end:%a %Y-%m-%d %H:%M} UTC"
        )
    return 0


async def armageddon_show(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with unit_of_work(cli) as uow:
        data = await armageddon_view(uow, args.match_id, config.rules)
    if data is None:
        raise CliError(f"match {args.match_id} has no armageddon")
    if args.json:
        print(as_json(data))
        return 0
    print(f"armageddon of match {data['match']}: {' v '.join(data['players'])}, {data['phase']}")
    print(f"bids due by {data['bid_deadline']}; in: {data['bids_in']}; revealed: {data['bids']}")
    if data["white"]:
        print(f"White: {data['white']} with {data['white_seconds']} s; Black: {data['black']}")
    if data["game"]:
        print(f"game {data['game']}: {data['winner']} won")
    for f in data["findings"]:
        print(f"  [{f['severity']}] {f['message']}")
    return 0


async def armageddon_relay(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    cmd: commands.Bid | commands.Rps
    if args.action == "bid":
        cmd = commands.Bid(parse_bid(args.value, ruleset=config.rules))
    else:
        try:
            cmd = commands.Rps(commands.Hand(args.value.strip().lower()))
        except ValueError:
            raise CliError(f"choose rock, paper or scissors, not {args.value!r}") from None
    async with services(cli) as found, found.db.uow() as uow:
        reply = await found.armageddons.act(
            uow, match_id=args.match_id, player=args.player, command=cmd, now=cli.clock.now()
        )
        await uow.commit()
    print(reply)
    return 0


async def armageddon_decide(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        reply = await found.armageddons.td_decide(
            uow, match_id=args.match_id, white=args.white, now=cli.clock.now(), actor=actor
        )
        await uow.commit()
    print(reply)
    return 0


async def armageddon_record(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        winner = await found.armageddon_games.record(
            uow,
            match_id=args.match_id,
            result=args.result,
            reason=args.reason,
            now=cli.clock.now(),
            actor=actor,
        )
        await uow.commit()
    print(f"match {args.match_id}: {winner} wins the armageddon game")
    return 0


def _confirm() -> bool:
    try:
        answer = input("apply this change? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


async def player_exit(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        preview = await found.exits.exit_player(
            uow,
            player=args.username,
            kind=args.exit_kind,
            reason=args.reason,
            engine_mark=getattr(args, "engine_mark", False),
            now=cli.clock.now(),
            actor=actor,
        )
        if args.json and args.yes:
            await uow.commit()
            print(as_json({**preview.data(), "applied": True}))
            return 0
        print(preview.text())
        if not args.yes and not _confirm():
            print("cancelled: nothing changed")
            return 1
        await uow.commit()
    print(f"{preview.username}: {preview.kind.replace('_', ' ')} recorded")
    return 0
