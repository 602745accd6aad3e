"""The web app: login with Lichess, match room, TD desk, public pages (issue 7)."""

from __future__ import annotations

from bot.app import Hooks


def register(hooks: Hooks) -> None:
    """Routes of the web app."""
    from bot.web.site import setup

    hooks.web_setup.append(setup)
