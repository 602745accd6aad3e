"""Re-export for the sandbox until it keeps its own time type (issue 12 item 5)."""

from bot.runtime.clock import Clock, FakeClock, SystemClock

__all__ = ["Clock", "FakeClock", "SystemClock"]
