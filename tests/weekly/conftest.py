"""Fixtures of the weekly tests (defined in :mod:`tests.weekly.harness`)."""

from tests.weekly.harness import client, clock, sandbox, sandbox_url, week

__all__ = ["client", "clock", "sandbox", "sandbox_url", "week"]
