"""Subcommands that live beside their feature."""

from __future__ import annotations

from typing import Any

from bot.cli import demo_cmd, pair_cmd, qualification_cmd, stages_cmd, weekly_cmd


def register(sub: Any) -> None:
    for module in (qualification_cmd, stages_cmd, weekly_cmd, pair_cmd, demo_cmd):
        module.register(sub)
