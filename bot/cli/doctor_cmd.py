"""``acwc doctor``: can the bot reach its players on Lichess?

Asks Lichess (``POST /api/token/test``, the team and its members) and prints the bot account,
its token's scopes and any missing, whether it leads the configured team, which registered
players are not members (DMs to them count against the bot's daily budget of new
conversations), whether the outbox is stopped by a refused token, and who refuses the bot's DMs.
Exits non-zero when a scope is missing, the bot does not lead the team, or the outbox is stopped.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.base import EXIT_ERROR, Cli, CliError, command, services
from bot.cli.output import as_json

__all__ = ["register"]


def register(sub: Any) -> None:
    p = command(sub, "doctor", doctor, "check the bot's token, scopes and team on Lichess")
    p.add_argument("--lichess-url", help="Lichess (or a running sandbox) to ask")
    p.add_argument("--json", action="store_true", help="print JSON")


async def doctor(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    url = args.lichess_url or (None if config.service.uses_sandbox else config.service.lichess_url)
    if url is None:
        raise CliError("pass --lichess-url of a running sandbox (python -m bot.sandbox)")
    async with services(cli, lichess_url=url) as found:
        assert found.registration is not None
        report = await found.registration.doctor()
    problems = []
    if report.token_problem is not None:
        problems.append(report.token_problem)
    elif report.bot is None:
        problems.append("the token is not valid")
    elif report.missing:
        problems.append(f"the token lacks the scope {', '.join(report.missing)}")
    if report.team and report.bot is not None and not report.leads_team:
        problems.append(f"{report.bot} does not lead the team {report.team}")
    if report.outbox_stopped:
        problems.append(f"the outbox is stopped: {report.outbox_stopped}")
    if args.json:
        print(
            as_json(
                {
                    "bot": report.bot,
                    "scopes": sorted(report.scopes),
                    "missing_scopes": report.missing,
                    "team": report.team,
                    "leads_team": report.leads_team,
                    "not_team_members": report.not_members,
                    "team_members_problem": report.members_problem,
                    "outbox_stopped": report.outbox_stopped,
                    "refusing_dms": report.refusing_dms,
                    "problems": problems,
                }
            )
        )
    else:
        print(f"bot account:   {report.bot or '(token not valid)'}")
        print(f"token scopes:  {', '.join(sorted(report.scopes)) or '-'}")
        print(f"missing:       {', '.join(report.missing) or 'none'}")
        if report.team:
            led = "led" if report.leads_team else "NOT led"
            print(f"team:          {report.team} ({led} by the bot)")
            if report.members_problem:
                print(f"members:       {report.members_problem}")
            else:
                print(f"not members:   {', '.join(report.not_members) or 'none'}")
        else:
            print("team:          none configured (every DM counts against the daily limit)")
        stopped = report.outbox_stopped
        print(f"outbox:        {'STOPPED: ' + stopped if stopped else 'running'}")
        print(f"refusing DMs:  {', '.join(report.refusing_dms) or 'none'}")
        for problem in problems:
            print(f"problem: {problem}")
    if problems:  # the report is on stdout; the exit and one line on stderr say it failed
        raise CliError("doctor: " + "; ".join(problems), EXIT_ERROR)
    return 0
