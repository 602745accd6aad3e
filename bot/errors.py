"""The one error the services and read models raise for a request that cannot be done."""

from __future__ import annotations

__all__ = ["LichessUnreachable", "OperationError", "StartupError"]


class OperationError(Exception):
    """A TD or player request that cannot be done; the message says why and what would work."""


class StartupError(Exception):
    """The service cannot start: the message says why and what to do."""


class LichessUnreachable(Exception):
    """Lichess could not be asked (no answer, or a server error): nothing it would have said is
    known. The message says what failed."""
