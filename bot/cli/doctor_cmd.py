"""``acwc doctor``: can the bot do on Lichess what the config asks of it?

Asks Lichess (each request tried once, with a short timeout) and prints one line a finding
(:mod:`bot.service.doctor`): that Lichess cannot be reached, and nothing else, when it cannot;
otherwise the token, the account (an ordinary one, not BOT), the scopes the config's features
need, the team and the bot's leadership with the Updates permission, the registered players
not in the team, a stopped outbox and who refuses the bot's DMs. Exits non-zero on any problem.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.base import EXIT_ERROR, Cli, CliError, command, services
from bot.cli.output import as_json

__all__ = ["register"]


def register(sub: Any) -> None:
    p = command(sub, "doctor", doctor, "check the bot's account, token, scopes and team on Lichess")
    p.add_argument("--lichess-url", help="Lichess (or a running sandbox) to ask")
    p.add_argument("--json", action="store_true", help="print JSON")


async def doctor(args: argparse.Namespace, cli: Cli) -> int:
    config = cli.config
    url = args.lichess_url or (None if config.service.uses_sandbox else config.service.lichess_url)
    if url is None:
        raise CliError("pass --lichess-url of a running sandbox (python -m bot.sandbox)")
    async with services(cli, lichess_url=url, quick=True) as found:
        assert found.doctor is not None
        report = await found.doctor.run()
    problems = report.problems
    if args.json:
        print(
            as_json(
                {
                    "lichess": url,
                    "reachable": report.reachable,
                    "bot": report.bot,
                    "scopes": sorted(report.scopes),
                    "missing_scopes": list(report.missing),
                    "findings": [
                        {"topic": f.topic, "ok": f.ok, "text": f.text} for f in report.findings
                    ],
                    "problems": problems,
                }
            )
        )
    else:
        for f in report.findings:
            print(f"{f.topic + ':':<14} {'ok' if f.ok else 'PROBLEM'}  {f.text}")
        if not report.reachable:
            print("nothing else was checked: every other answer would have been a guess")
    if problems:  # the report is on stdout; the exit and one line on stderr say it failed
        raise CliError("doctor: " + "; ".join(problems), EXIT_ERROR)
    return 0
