"""The adapter's error tree.

``LichessError`` -> ``LichessHTTPError(status, body)`` -> ``RateLimitedError`` / ``NotFoundError`` /
``AuthorizationError`` (401, 403: the token is unknown or lacks a scope) / ``InboxLimitedError``
(a 429 from ``POST /inbox``: the bot's budget of new conversations, not a global rate limit) /
``MessageRefusedError`` (a 400 from ``POST /inbox``: the player blocks the bot or takes messages
only from people they follow); ``MissingScopeError``: the token test found a needed scope absent;
transport failures (connection refused, timeouts, truncated bodies) are ``LichessTransportError``
raised ``from`` the library's exception; an answer the adapter cannot read is
``LichessPayloadError``. No requests, berserk or aiohttp exception leaves the package.
"""

from __future__ import annotations


class LichessError(Exception):
    """Anything that went wrong talking to Lichess."""


class LichessHTTPError(LichessError):
    """Lichess answered with an error status. ``body`` is the response text (never a token)."""

    def __init__(self, status: int, body: str = "") -> None:
        self.status = status
        self.body = body[:2000]
        super().__init__(f"Lichess answered HTTP {status}: {self.body[:200]}")

    @property
    def is_server_error(self) -> bool:
        return self.status >= 500


class RateLimitedError(LichessHTTPError):
    """HTTP 429: Lichess wants a full minute of silence."""

    def __init__(self, body: str = "") -> None:
        super().__init__(429, body)


class NotFoundError(LichessHTTPError):
    """HTTP 404: no such user or game."""

    def __init__(self, body: str = "") -> None:
        super().__init__(404, body)


class AuthorizationError(LichessHTTPError):
    """HTTP 401 or 403: the token is unknown, revoked, or lacks the endpoint's scope."""


class NoUpdatesPermissionError(LichessHTTPError):
    """``POST /team/{teamId}/pm-all`` redirected (303) to the team page: the bot leads the team
    without its "Updates" permission (lila's ``Team.pmAllSubmit``). Retrying will not help."""

    def __init__(self, team: str) -> None:
        super().__init__(303, f"the bot leads team {team} without its Updates permission")


class InboxLimitedError(LichessHTTPError):
    """HTTP 429 from ``POST /inbox/{username}``: lila's per-sender message budget (new
    conversations per day, replies per minute), which pausing every call would not help."""

    recipient_failure = "limited"  # the outbox holds this recipient's messages

    def __init__(self, body: str = "") -> None:
        super().__init__(429, body)


class MessageRefusedError(LichessHTTPError):
    """HTTP 400 from ``POST /inbox/{username}``: "The message was rejected" (the recipient
    blocks the sender, or accepts messages only from people they follow)."""

    recipient_failure = "refused"  # the outbox marks this recipient unreachable by DM

    def __init__(self, body: str = "") -> None:
        super().__init__(400, body)


class MissingScopeError(LichessError):
    """The bot's token lacks scopes a command needs (``POST /api/token/test``)."""

    def __init__(self, missing: list[str], user: str | None) -> None:
        self.missing = missing
        self.user = user
        who = "an unknown or revoked token" if user is None else f"the token of {user}"
        super().__init__(f"{who} lacks the scope {', '.join(missing)}")


class LichessTransportError(LichessError):
    """The request did not get an answer: connection, timeout or truncated stream."""


class LichessPayloadError(LichessError):
    """Lichess answered something the adapter cannot read (bad JSON, missing fields)."""


class OAuthError(LichessError):
    """The web login failed: bad state, code or verifier, or Lichess refused the grant.

    ``error`` is the OAuth error code (``invalid_grant``, ``access_denied``, ``state_mismatch``).
    """

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"{error}: {description}" if description else error)


def http_error(status: int, body: str) -> LichessHTTPError:
    """The most specific error class for ``status``."""
    if status == 429:
        return RateLimitedError(body)
    if status == 404:
        return NotFoundError(body)
    if status in (401, 403):
        return AuthorizationError(status, body)
    return LichessHTTPError(status, body)
