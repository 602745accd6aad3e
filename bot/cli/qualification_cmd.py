"""CLI commands of the qualification stage: pairing rounds, standings, TRF export (rules 3.v)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.cli.base import (
    Cli,
    CliError,
    add_season_option,
    check_actor,
    command,
    group,
    row_id,
    season_reads,
    services,
    unit_of_work,
)
from bot.cli.output import as_json, table
from bot.views.qualification import RoundView, round_view, standings
from bot.views.qualification import trf_export as export_trf
from rules.core.scoring import format_points


def register(sub: Any) -> None:
    rounds = group(sub, "round", "qualification rounds: pair, review, approve")
    p = command(rounds, "pair", round_pair, "propose the next round (FIDE Dutch system)")
    p.add_argument(
        "--forbid",
        nargs=2,
        action="append",
        default=[],
        metavar=("A", "B"),
        help="never pair A with B in this stage (repeatable)",
    )
    p.add_argument(
        "--swap",
        nargs=2,
        action="append",
        default=[],
        metavar=("A", "B"),
        help="re-pair the proposal without A's and B's proposed pairings (repeatable)",
    )
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = command(rounds, "show", round_show, "show a round's boards with scores, colours, floats")
    p.add_argument("number", nargs="?", type=row_id, help="round number (default: the latest)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = command(rounds, "approve", round_approve, "approve the proposed round and publish it")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")

    p = command(sub, "standings", standings_show, "standings of a stage with every tiebreak")
    p.add_argument(
        "--stage",
        choices=["qualification", "candidates", "knockout"],
        default="qualification",
        help="which stage (default: qualification)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    add_season_option(p)

    trf = group(sub, "trf", "FIDE tournament report files")
    p = command(trf, "export", trf_export, "write the qualification so far as TRF")
    p.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    p.add_argument("--trf2026", action="store_true", help="TRF-2026 tags (142/152/260)")
    add_season_option(p)

    registration = group(sub, "registration", "registrations: eligibility and seeding")
    p = command(registration, "check", registration_check, "check eligibility, store seed ratings")
    p.add_argument("--lichess-url", help="Lichess (or a running sandbox) to ask")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command(sub, "adjudicate", match_adjudicate, "a TD decides an unfinished match")
    p.add_argument("match_id", type=row_id, help="match number")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--winner", help="the player who gets the match")
    who.add_argument("--tied", action="store_true", help="a tied match (½ each)")
    p.add_argument("--reason", required=True, help="why (audit log)")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")


def _view_data(view: RoundView) -> dict[str, Any]:
    return {
        "round": view.number,
        "of": view.total_rounds,
        "state": view.state,
        "boards": [
            {
                "match": b.match_id,
                "board": b.board,
                "white": b.white,
                "black": b.black,
                "white_score": format_points(b.white_score),
                "black_score": None if b.black_score is None else format_points(b.black_score),
                "white_colours": b.white_colours,
                "black_colours": b.black_colours,
                "white_float": b.white_float,
                "black_float": b.black_float,
            }
            for b in view.boards
        ],
    }


def _print_view(view: RoundView, as_json_output: bool) -> None:
    if as_json_output:
        print(as_json(_view_data(view)))
        return
    print(f"qualification round {view.number} of {view.total_rounds} ({view.state})")
    rows = []
    for b in view.boards:
        black = "(bye)" if b.black is None else b.black
        black_score = "" if b.black_score is None else format_points(b.black_score)
        rows.append(
            (
                b.board,
                b.white,
                format_points(b.white_score),
                b.white_colours or "-",
                b.white_float,
                black,
                black_score,
                b.black_colours or "",
                b.black_float or "",
            )
        )
    headers = ["board", "white (game 1)", "pts", "colours", "float"]
    print(table([*headers, "black (game 1)", "pts", "colours", "float"], rows))


async def round_pair(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        view = await found.qualification.propose_round(
            uow,
            now=cli.clock.now(),
            actor=actor,
            forbid=[tuple(p) for p in args.forbid],
            swap=[tuple(p) for p in args.swap],
        )
        await uow.commit()
    _print_view(view, args.json)
    if not args.json:
        print("approve with `acwc round approve`, or re-pair with --forbid/--swap")
    return 0


async def round_show(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with unit_of_work(cli) as uow:
        view = await round_view(uow, config, args.number)
    _print_view(view, args.json)
    return 0


async def round_approve(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        row = await found.qualification.approve_proposed(uow, now=cli.clock.now(), actor=actor)
        boards = len(await uow.matches.for_round(row.id))
        await uow.commit()
    print(f"round {row.number} approved and published ({boards} boards)")
    return 0


async def standings_show(args: argparse.Namespace, cli: Cli) -> int:
    if args.stage != "qualification":
        from bot.cli.stages_cmd import stage_standings

        args.which = args.stage
        return await stage_standings(args, cli)
    async with season_reads(cli, args.season) as (uow, config):
        table_ = await standings(uow, config.rules)
    rows = [
        {
            "rank": r.rank,
            "player": r.username,
            "match_points": format_points(r.match_points),
            "buchholz_median": format_points(r.buchholz_median),
            "progressive": format_points(r.progressive),
            "seed": r.seed,
            "buchholz": format_points(r.buchholz),
            "game_points": format_points(r.game_points),
            "status": r.status.value,
        }
        for r in table_.rows
    ]
    if args.json:
        print(as_json(rows))
        return 0
    print(f"qualification standings after {table_.rounds} round(s)")
    print(
        table(
            ["#", "player", "pts", "BH-M1", "prog", "seed", "BH", "games", "status"],
            [tuple(r.values()) for r in rows],
        )
    )
    return 0


async def trf_export(args: argparse.Namespace, cli: Cli) -> int:
    async with season_reads(cli, args.season) as (uow, config):
        text = await export_trf(uow, config, trf2026=args.trf2026)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as e:
            raise CliError(f"cannot write {args.output}: {e.strerror}") from None
        print(f"wrote {args.output}")
    return 0


async def match_adjudicate(args: argparse.Namespace, cli: Cli) -> int:
    actor = check_actor(cli.config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        row = await found.results.adjudicate(
            uow,
            args.match_id,
            winner=None if args.tied else args.winner,
            reason=args.reason,
            now=cli.clock.now(),
            actor=actor,
        )
        await uow.commit()
    print(f"match {row.id}: {row.outcome} (adjudicated)")
    return 0


async def registration_check(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    url = args.lichess_url or (None if config.service.uses_sandbox else config.service.lichess_url)
    if url is None:
        raise CliError(
            "the bundled sandbox starts empty: pass --lichess-url of a running sandbox "
            "(python -m bot.sandbox) or set service.lichess_url"
        )
    actor = check_actor(config, args.by)
    async with services(cli, lichess_url=url) as found:
        assert found.registration is not None
        checks = await found.registration.check_all()
        async with found.db.uow() as uow:
            await found.registration.record_checks(uow, checks, now=cli.clock.now(), actor=actor)
            await uow.commit()
    data = [
        {
            "player": c.username,
            "eligible": c.is_eligible,
            "rated_games": None if c.verdict is None else c.verdict.rated_games_counted,
            "rating_at_cutoff": None if c.verdict is None else c.verdict.rating_at_cutoff,
            "peak_rating": None if c.verdict is None else c.verdict.peak_rating,
            "seed_rating": None if c.verdict is None else c.verdict.seed_rating,
            "reasons": c.reasons,
        }
        for c in checks
    ]
    if args.json:
        print(as_json(data))
    elif not data:
        print("no players registered")
    else:
        print(
            table(
                ["player", "eligible", "games", "at cut-off", "peak", "seed", "reasons"],
                [
                    (
                        d["player"],
                        "yes" if d["eligible"] else "NO",
                        d["rated_games"],
                        d["rating_at_cutoff"],
                        d["peak_rating"],
                        d["seed_rating"],
                        "; ".join(c.reasons) or "-",
                    )
                    for c, d in zip(checks, data, strict=True)
                ],
            )
        )
    return 0
