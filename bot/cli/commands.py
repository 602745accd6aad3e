"""The subcommands: each parses, opens a unit of work, calls a shared operation, prints."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from bot.cli import backup_cmd
from bot.cli.base import (
    Cli,
    CliError,
    check_actor,
    command,
    confirm,
    database,
    group,
    row_id,
    services,
    unit_of_work,
)
from bot.cli.output import as_json, table
from bot.config import describe_rules
from bot.errors import StartupError
from bot.views.matches import outcome_label
from bot.views.scores import ScoredMatch, match_state
from bot.views.tournament import require_tournament
from rules.core.model import normalise_username
from rules.core.scoring import format_points
from rules.core.states import PlayerStatus
from storage import migrate
from storage.urls import shown


def register(sub: Any) -> None:
    db = group(sub, "db", "create or update the database schema")
    p = command(db, "upgrade", db_upgrade, "apply all migrations (creates the database if needed)")
    p.add_argument(
        "--check",
        action="store_true",
        help="change nothing: list the migrations and say whether the running version can "
        "keep going through them (exit 0) or must be stopped first (exit 1)",
    )
    p = command(db, "downgrade", db_downgrade, "revert migrations down to REVISION")
    p.add_argument("revision", help="target revision, or 'base' for an empty database")
    p.add_argument("--yes", action="store_true", help="revert without asking (it drops data)")
    command(db, "current", db_current, "show the database's schema revision")
    backup_cmd.register(db)

    tournament = group(sub, "tournament", "the tournament itself")
    command(tournament, "create", tournament_create, "create the tournament from the config")
    p = command(tournament, "show", tournament_show, "show the tournament, stages and rules")
    p.add_argument("--json", action="store_true", help="print JSON")

    player = group(sub, "player", "registered players")
    p = command(player, "add", player_add, "register a player by Lichess username")
    p.add_argument("username", help="Lichess username")
    p.add_argument("--rating", type=int, help="seeding rating (rules 3.v.3)")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")
    p = command(player, "list", player_list, "list registered players")
    p.add_argument("--status", choices=[s.value for s in PlayerStatus])
    p.add_argument("--json", action="store_true", help="print JSON")
    p = command(player, "remove", player_remove, "remove a registration made in error")
    p.add_argument("username", help="Lichess username")
    p.add_argument("--reason", required=True, help="why (audit log)")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")
    p.add_argument(
        "--lichess-url", help="Lichess (or a running sandbox) to revoke a stored token on"
    )

    match = group(sub, "match", "matches")
    p = command(match, "show", match_show, "show a match with its games and score")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--json", action="store_true", help="print JSON")

    result = group(sub, "result", "game results")
    p = command(result, "record", result_record, "record or correct a game result by hand")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--game", type=row_id, required=True, help="game number in the match (1-based)")
    p.add_argument("--result", required=True, help="1-0, 0-1 or 1/2-1/2, from White's view")
    p.add_argument("--reason", required=True, help="why (audit log)")
    p.add_argument("--by", default="cli", help="the TD doing this (audit log)")

    p = command(sub, "audit", audit_list, "show the audit log")
    p.add_argument("--player", help="only entries about this player")
    p.add_argument("--match", type=row_id, help="only entries about this match")
    p.add_argument("--limit", type=int, help="at most this many entries")
    p.add_argument("--json", action="store_true", help="print JSON")

    command(sub, "run", service_run, "run the service: games stream, deadlines, outbox, web")


async def db_upgrade(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with database(config, check=False, create=not args.check) as db:
        if args.check:
            try:
                found = await migrate.check_upgrade(db)
            except migrate.UnknownRevision as e:
                raise CliError(f"upgrade --check: {e}") from None
            print("\n".join(found.lines()))
            return 0 if found.keeps_going or found.current is None or not found.steps else 1
        await migrate.upgrade(db)
        print(f"database at revision {await migrate.current_revision(db)}")
    return 0


async def db_downgrade(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with database(config, check=False) as db:
        current = await migrate.current_revision(db)
        if current is None:
            raise CliError("the database has no schema: there is nothing to revert")
        if args.revision != "base" and not migrate.known_revision(args.revision):
            raise CliError(f"cannot downgrade to {args.revision!r}: no such revision")
        what = "drops every table and row" if args.revision == "base" else "can drop data"
        where = shown(config.service.database_url)
        print(f"reverting {where} from {current} to {args.revision} {what}")
        if not args.yes and not confirm("revert the schema?"):
            print("cancelled: nothing changed")
            return 1
        try:
            await migrate.downgrade(db, args.revision)
        except Exception as e:  # alembic raises CommandError/KeyError-like errors for bad revisions
            raise CliError(f"cannot downgrade to {args.revision!r}: {e}") from None
        print(f"database at revision {await migrate.current_revision(db) or 'base'}")
    return 0


async def db_current(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with database(config, check=False) as db:
        current = await migrate.current_revision(db)
    print(f"{current or 'base (empty)'} (head is {migrate.head_revision()})")
    return 0


async def tournament_create(args: argparse.Namespace, cli: Cli) -> int:
    async with services(cli) as s, s.db.uow() as uow:
        row = await s.tournament.create(uow, now=cli.clock.now(), actor="cli")
        await uow.commit()
    print(f"created tournament {row.name!r}")
    return 0


async def tournament_show(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    async with unit_of_work(cli) as uow:
        row = await require_tournament(uow)
        stages = await uow.tournaments.stages(row.id)
        players = await uow.players.list()
    data = {
        "name": row.name,
        "created_at": row.created_at.isoformat(),
        "current_stage": row.current_stage,
        "stages": [{"kind": s.kind, "state": s.state} for s in stages],
        "players": len(players),
        "tds": list(config.tournament.tds),
        "rules": describe_rules(config.rules),
    }
    if args.json:
        print(as_json(data))
        return 0
    print(f"{row.name}  (created {row.created_at:%Y-%m-%d %H:%M} UTC)")
    print(f"current stage: {row.current_stage}; {len(players)} players registered")
    print(f"TDs: {', '.join(config.tournament.tds) or '(none configured)'}")
    print(table(["stage", "state"], [(s.kind, s.state) for s in stages]))
    return 0


async def player_add(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as s, s.db.uow() as uow:
        row = await s.players.add(
            uow, args.username, seed_rating=args.rating, now=cli.clock.now(), actor=actor
        )
        await uow.commit()
    seeded = f" (seeded: {row.seeded_as})" if row.seeded_as else ""
    print(f"registered {row.username}{seeded}")
    return 0


async def player_list(args: argparse.Namespace, cli: Cli) -> int:
    async with unit_of_work(cli) as uow:
        rows = await uow.players.list(status=args.status)
    data = [
        {
            "username": r.username,
            "seed_rating": r.seed_rating,
            "seeded_as": r.seeded_as,
            "status": r.status,
            "registered_at": r.registered_at.isoformat(),
        }
        for r in rows
    ]
    if args.json:
        print(as_json(data))
    elif not rows:
        print("no players registered")
    else:
        print(
            table(
                ["#", "player", "rating", "seeded", "status"],
                [
                    (i, r.username, r.seed_rating, r.seeded_as, r.status)
                    for i, r in enumerate(rows, 1)
                ],
            )
        )
    return 0


async def player_remove(args: argparse.Namespace, cli: Cli) -> int:
    """A registration removed; a Lichess token the player stored is revoked on Lichess first
    (the row goes with the player's): if Lichess cannot take it, nothing is removed."""
    config = cli.config
    actor = check_actor(config, args.by)
    async with unit_of_work(cli) as uow:
        stored = await uow.tokens.get(normalise_username(args.username)) is not None
    url = None
    if stored:
        url = args.lichess_url or (
            None if config.service.uses_sandbox else config.service.lichess_url
        )
        if url is None:
            raise CliError(
                f"{args.username} stored a Lichess token, which is revoked before the player "
                "goes: give --lichess-url (the running sandbox's)"
            )
    async with services(cli, lichess_url=url, quick=True) as s, s.db.uow() as uow:
        now = cli.clock.now()
        tokens = s.player_tokens
        token = None
        if tokens is not None:
            token = await tokens.withdraw(uow, args.username, now=now, actor=actor, why="removed")
        revoke = None if tokens is None else tokens.revoke
        if token is not None and revoke is not None and not await revoke(token):
            raise CliError(  # the transaction is not committed: the token stays, sealed
                f"Lichess did not revoke {args.username}'s stored token (it cannot be reached?): "
                "nothing is removed; run this again when Lichess answers"
            )
        await s.players.remove(uow, args.username, reason=args.reason, now=now, actor=actor)
        await uow.commit()
    print(f"removed {args.username}")
    return 0


def _match_data(state: ScoredMatch) -> dict[str, Any]:
    row = state.row
    return {
        "id": row.id,
        "stage": row.stage,
        "white_first": row.white_first,
        "black_first": row.black_first,
        "games": row.games,
        "week": row.week,
        "state": row.state,
        "outcome": row.outcome,
        "decided_by": row.decided_by,
        "agreed_time": row.agreed_time.isoformat() if row.agreed_time else None,
        "score": None
        if state.score is None
        else [format_points(state.score.first), format_points(state.score.second)],
        "game_list": [
            {
                "id": g.id,
                "white": g.white,
                "black": g.black,
                "status": g.status,
                "winner": g.winner,
                "source": g.source,
            }
            for g in state.games
        ],
    }


async def match_show(args: argparse.Namespace, cli: Cli) -> int:
    async with unit_of_work(cli) as uow:
        state = await match_state(uow, args.match_id)
    data = _match_data(state)
    if args.json:
        print(as_json(data))
        return 0
    row = state.row
    if row.black_first is None:
        print(f"match {row.id} ({row.stage}): {row.white_first} has a bye")
        return 0
    print(f"match {row.id} ({row.stage}, week {row.week}): {row.white_first} - {row.black_first}")
    print(f"score {state.score} after {len(state.games)} of {row.games} games; state {row.state}")
    decided = outcome_label(state, row.white_first, row.black_first)
    if decided:
        print(f"result: {decided}")
    if row.agreed_time:
        print(f"agreed time: {row.agreed_time:%a %d %b %H:%M} UTC")
    if state.games:
        result = {"w": "1-0", "b": "0-1", None: "1/2-1/2"}
        print(
            table(
                ["#", "white", "black", "result", "status", "game"],
                [
                    (i, g.white, g.black, result[g.winner], g.status, g.id)
                    for i, g in enumerate(state.games, 1)
                ],
            )
        )
    return 0


async def result_record(args: argparse.Namespace, cli: Cli) -> int:
    actor = check_actor(cli.config, args.by)
    async with services(cli) as s, s.db.uow() as uow:
        state = await s.results.record(
            uow,
            args.match_id,
            game_number=args.game,
            result=args.result,
            reason=args.reason,
            now=cli.clock.now(),
            actor=actor,
        )
        await uow.commit()
    outcome = state.outcome.value if state.outcome else "-"
    print(f"match {args.match_id}: score {state.score}, {outcome}")
    return 0


async def audit_list(args: argparse.Namespace, cli: Cli) -> int:
    if args.limit is not None and args.limit < 1:
        raise CliError("--limit must be at least 1")
    player = normalise_username(args.player) if args.player else None
    async with unit_of_work(cli) as uow:
        rows = await uow.audit.list(player=player, match_id=args.match, limit=args.limit)
    data = [
        {
            "id": r.id,
            "at": r.at.isoformat(),
            "actor": r.actor,
            "action": r.action,
            "player": r.player,
            "match": r.match_id,
            "reason": r.reason,
            "details": r.details,
        }
        for r in rows
    ]
    if args.json:
        print(as_json(data))
    elif not rows:
        print("no audit entries")
    else:
        print(
            table(
                ["#", "time (UTC)", "actor", "action", "player", "match", "reason"],
                [
                    (
                        r.id,
                        f"{r.at:%Y-%m-%d %H:%M:%S}",
                        r.actor,
                        r.action,
                        r.player,
                        r.match_id,
                        r.reason,
                    )
                    for r in rows
                ],
            )
        )
    return 0


async def service_run(args: argparse.Namespace, cli: Cli) -> int:
    if not args.verbose:  # the service logs at the config's level (-v: everything)
        logging.getLogger().setLevel(cli.config.service.log_level.upper())
    try:
        await cli.launcher.run(cli.config)
    except StartupError as e:
        raise CliError(str(e)) from None
    return 0
