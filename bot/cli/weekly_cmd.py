"""CLI commands of the weekly feature: TD relay, fault and claim decisions, disqualification,
deadlines, the outbox and forum drafts, a match's timeline (rules 4-7).

Every command that changes something takes ``--by TD`` and goes into the audit log.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.base import Cli, CliError, check_actor, command, group, row_id, services, unit_of_work
from bot.cli.output import as_json, table
from bot.errors import OperationError
from bot.notify.kinds import Channel, OutboxStatus
from bot.views.timeline import timeline

OUTBOX_STATUSES = tuple(s.value for s in OutboxStatus)
OUTBOX_KINDS = tuple(c.value for c in Channel)


def _by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", default="cli", help="the TD doing this (audit log)")


def register(sub: Any) -> None:
    """Add this feature's subcommands."""
    p = command(sub, "say", say, "relay a player's message to the bot (as if they sent it)")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("user", help="the player who wrote it")
    p.add_argument("text", help='what they wrote, e.g. "offer thu 18:00"')
    _by(p)

    fault = group(sub, "fault", "negotiation faults (rules 5.8, 5.9)")
    p = command(fault, "decide", fault_decide, "rule who is at fault for a match without a time")
    p.add_argument("match_id", type=row_id, help="match number")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--at-fault", metavar="USER", help="the player at fault (the other chooses)")
    who.add_argument("--nobody", action="store_true", help="nobody at fault: a tied match")
    p.add_argument("--reason", required=True, help="why (audit log)")
    _by(p)

    claim = group(sub, "claim", "claims of the match win (rules 6.3, 6.4)")
    p = command(claim, "decide", claim_decide, "grant a claim (forfeit) or dismiss it")
    p.add_argument("match_id", type=row_id, help="match number")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--winner", metavar="USER", help="the player who wins by forfeit")
    how.add_argument("--dismiss", action="store_true", help="dismiss the open claim")
    p.add_argument("--reason", required=True, help="why (audit log)")
    _by(p)

    dq = group(sub, "dq", "disqualification after forfeits in two matches (rules 6.5)")
    p = command(dq, "confirm", dq_confirm, "confirm a proposed disqualification")
    p.add_argument("user", help="the player")
    p.add_argument("--reason", required=True, help="why (audit log)")
    _by(p)

    forfeit = group(sub, "forfeit", "forfeits charged to players (rules 5.6, 6.2-6.5)")
    p = command(forfeit, "list", forfeit_list, "list forfeits, waived ones included")
    p.add_argument("--player", help="only this player")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = command(forfeit, "waive", forfeit_waive, "waive a forfeit (rules 5.10)")
    p.add_argument("forfeit_id", type=row_id, help="forfeit number (see `acwc forfeit list`)")
    p.add_argument("--reason", required=True, help="why (audit log)")
    _by(p)

    p = command(sub, "deadlines", deadlines_list, "list planned and fired deadlines")
    p.add_argument("--match", type=row_id, help="only this match")
    p.add_argument("--all", action="store_true", help="include cancelled deadlines")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command(sub, "outbox", outbox_list, "list queued, sent and failed messages")
    p.add_argument("--status", choices=OUTBOX_STATUSES)
    p.add_argument("--kind", choices=OUTBOX_KINDS)
    p.add_argument("--json", action="store_true", help="print JSON")

    forum = group(sub, "forum", "forum drafts the TDs paste into the pairings thread")
    p = command(forum, "posted", forum_posted, "mark a forum draft as posted")
    p.add_argument("outbox_id", type=row_id, help="the draft's number in `acwc outbox`")
    _by(p)

    p = command(sub, "timeline", timeline_show, "a match's history: its events and audit entries")
    p.add_argument("match_id", type=row_id, help="match number")
    p.add_argument("--json", action="store_true", help="print JSON")


async def say(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        reply = await found.texts.handle(
            uow,
            match_id=args.match_id,
            player=args.user,
            text=args.text,
            now=cli.clock.now(),
            via="td-relay",
            relayed_by=actor,
        )
        if reply.changed:
            await uow.commit()
    if not reply.ok:  # a refusal, like every refused command: one line on stderr
        raise CliError(reply.text)
    print(reply.text)
    return 0


async def fault_decide(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        after = await found.decisions.decide_fault(
            uow,
            args.match_id,
            at_fault=None if args.nobody else args.at_fault,
            reason=args.reason,
            now=cli.clock.now(),
            actor=actor,
        )
        await uow.commit()
    if after.ruling is not None and after.ruling.tied:
        print(f"match {args.match_id}: nobody at fault; recorded as a tied match (rules 5.9)")
    else:
        assert after.ruling is not None
        at_fault = ", ".join(after.ruling.at_fault)
        print(
            f"match {args.match_id}: {at_fault} at fault; {after.ruling.chooser} chooses the time"
        )
    return 0


async def claim_decide(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        row = await found.decisions.decide_claim(
            uow,
            args.match_id,
            winner=None if args.dismiss else args.winner,
            reason=args.reason,
            now=cli.clock.now(),
            actor=actor,
        )
        await uow.commit()
    if args.dismiss:
        print(f"match {args.match_id}: claim dismissed")
    else:
        print(f"match {args.match_id}: {args.winner} wins by forfeit ({row.outcome})")
    return 0


async def dq_confirm(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        await found.conduct.confirm_disqualification(
            uow, args.user, reason=args.reason, now=cli.clock.now(), actor=actor
        )
        await uow.commit()
    print(f"{args.user} is disqualified (rules 6.5)")
    return 0


async def deadlines_list(args: argparse.Namespace, cli: Cli) -> int:
    async with unit_of_work(cli) as uow:
        rows = await uow.weekly.deadlines(args.match)
    shown = [r for r in rows if args.all or r.cancelled_at is None]
    now = cli.clock.now()

    def state(r: Any) -> str:
        if r.cancelled_at is not None:
            return "cancelled"
        if r.fired_at is not None:
            late = r.fired_at - r.due_at
            return "fired" + (
                f" ({int(late.total_seconds() // 60)} min late)"
                if late.total_seconds() > 60
                else ""
            )
        return "overdue" if r.due_at <= now else "planned"

    data = [
        {
            "id": r.id,
            "match": r.match_id,
            "kind": r.kind,
            "subject": r.subject,
            "due": r.due_at.isoformat(),
            "fired_at": r.fired_at.isoformat() if r.fired_at else None,
            "cancelled_at": r.cancelled_at.isoformat() if r.cancelled_at else None,
            "state": state(r),
        }
        for r in shown
    ]
    if args.json:
        print(as_json(data))
    elif not shown:
        print("no deadlines")
    else:
        print(
            table(
                ["#", "match", "kind", "due (UTC)", "state", "subject"],
                [
                    (r.id, r.match_id, r.kind, f"{r.due_at:%a %Y-%m-%d %H:%M}", state(r), r.subject)
                    for r in shown
                ],
            )
        )
    return 0


async def outbox_list(args: argparse.Namespace, cli: Cli) -> int:
    async with unit_of_work(cli) as uow:
        rows = await uow.outbox.list(status=args.status, kind=args.kind)
    data = [
        {
            "id": r.id,
            "created_at": r.created_at.isoformat(),
            "kind": r.kind,
            "recipient": r.recipient,
            "subject": r.subject,
            "status": r.status,
            "attempts": r.attempts,
            "last_error": r.last_error,
            "body": r.body,
            "revised_body": r.revised_body,
        }
        for r in rows
    ]
    if args.json:
        print(as_json(data))
    elif not rows:
        print("the outbox is empty" if not (args.status or args.kind) else "no such messages")
    else:
        print(
            table(
                ["#", "created (UTC)", "kind", "to", "status", "text"],
                [
                    (
                        r.id,
                        f"{r.created_at:%Y-%m-%d %H:%M}",
                        r.kind,
                        r.recipient,
                        f"{r.status} (edited)" if r.revised_body else r.status,
                        (r.subject or r.body.splitlines()[0])[:60],
                    )
                    for r in rows
                ],
            )
        )
    return 0


async def forum_posted(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    now = cli.clock.now()
    async with services(cli) as found, found.db.uow() as uow:
        await found.forum.mark_posted(uow, args.outbox_id, now=now, actor=actor)
        await uow.commit()
    print(f"forum draft {args.outbox_id} marked posted")
    return 0


async def timeline_show(args: argparse.Namespace, cli: Cli) -> int:
    async with unit_of_work(cli) as uow:
        if await uow.matches.get(args.match_id) is None:
            raise OperationError(f"there is no match {args.match_id}")
        entries = await timeline(uow, args.match_id)
    if args.json:
        print(
            as_json(
                [
                    {
                        "at": e.at.isoformat(),
                        "source": e.source,
                        "actor": e.actor,
                        "kind": e.kind,
                        "text": e.text,
                    }
                    for e in entries
                ]
            )
        )
    elif not entries:
        print(f"match {args.match_id} has no history yet")
    else:
        print(
            table(
                ["time (UTC)", "from", "who", "what"],
                [(f"{e.at:%a %Y-%m-%d %H:%M}", e.source, e.actor, e.text) for e in entries],
            )
        )
    return 0


async def forfeit_list(args: argparse.Namespace, cli: Cli) -> int:

    player = None if args.player is None else args.player.lower()
    async with unit_of_work(cli) as uow:
        rows = await uow.weekly.forfeits(player=player)
    data = [
        {
            "id": r.id,
            "player": r.player_id,
            "match": r.match_id,
            "kind": r.kind,
            "reason": r.reason,
            "at": r.at.isoformat(),
            "waived": r.waived,
            "waived_by": r.waived_by,
        }
        for r in rows
    ]
    if args.json:
        print(as_json(data))
    elif not data:
        print("no forfeits")
    else:
        print(
            table(
                ["#", "player", "match", "kind", "reason", "at (UTC)", "waived"],
                [
                    (
                        r.id,
                        r.player_id,
                        r.match_id,
                        r.kind,
                        r.reason,
                        f"{r.at:%Y-%m-%d %H:%M}",
                        r.waived_by or "-",
                    )
                    for r in rows
                ],
            )
        )
    return 0


async def forfeit_waive(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    actor = check_actor(config, args.by)
    async with services(cli) as found, found.db.uow() as uow:
        row = await found.conduct.waive_forfeit(
            uow, args.forfeit_id, reason=args.reason, now=cli.clock.now(), actor=actor
        )
        await uow.commit()
    print(f"forfeit {row.id} of {row.player_id} waived")
    return 0
