"""The weekly harness's fixtures (a published match on a real database and a sandbox Lichess)."""

from tests.weekly.harness import client, clock, sandbox, sandbox_url, week

__all__ = ["client", "clock", "sandbox", "sandbox_url", "week"]
