"""``python -m bot.sandbox --port 8765``: the fake Lichess on 127.0.0.1, driven by its admin API."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from bot.sandbox.app import run_sandbox
from bot.sandbox.state import SandboxState


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--bot", default="acwc-bot", help="username of the bot account (gets a token)"
    )
    parser.add_argument("--token", default="lip_sandbox_bot", help="the bot's API token")
    parser.add_argument("--team", default="acwc", help="team the bot leads")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    state = SandboxState()
    state.add_token(args.bot, token=args.token)
    state.make_team(args.team, leaders=[args.bot])
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_sandbox(state, host=args.host, port=args.port))


if __name__ == "__main__":
    main()
