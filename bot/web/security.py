"""Signed cookies, server-side sessions and CSRF tokens, with the standard library only.

A cookie holds ``<random token>.<HMAC-SHA256 of it>``; the database holds only the SHA-256 of the
token (``web_sessions``), so neither a forged cookie nor a copy of the database opens a session,
and logging out (deleting the row) ends it for good. Each session has its own CSRF token, which
every form sends back and :func:`check_csrf` compares in constant time.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass

from bot.config import Config

log = logging.getLogger(__name__)

SESSION_COOKIE = "acwc_session"
LOGIN_COOKIE = "acwc_login"
SESSION_LIFETIME = dt.timedelta(days=30)
LOGIN_LIFETIME = dt.timedelta(minutes=10)


class MissingSecretError(Exception):
    """A real deployment without ``ACWC_SESSION_SECRET``: sessions could not be trusted."""


def session_key(config: Config) -> bytes:
    """The key that signs cookies: derived from ``ACWC_SESSION_SECRET``, or (sandbox only) random.

    Raises :class:`MissingSecretError` against a real Lichess with no secret configured.
    """
    secret = config.secrets.session_secret
    if secret:
        return hashlib.sha256(b"acwc-web-cookie\x00" + secret.encode("utf-8")).digest()
    if not config.service.uses_sandbox:
        raise MissingSecretError(
            "the web app needs ACWC_SESSION_SECRET (a long random string) to sign its cookies"
        )
    log.warning(
        "ACWC_SESSION_SECRET is not set: using a random key for this process; "
        "web sessions will not survive a restart"
    )
    return secrets.token_bytes(32)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class Signer:
    """HMAC-SHA256 signatures bound to a purpose, so one cookie cannot stand in for another."""

    key: bytes

    def __repr__(self) -> str:  # the key is a secret
        return "Signer(...)"

    def _mac(self, purpose: str, value: str) -> str:
        message = purpose.encode("ascii") + b"\x00" + value.encode("utf-8")
        return _b64(hmac.new(self.key, message, hashlib.sha256).digest())

    def sign(self, purpose: str, value: str) -> str:
        if "." in value:
            raise ValueError("signed values may not contain '.'")
        return f"{value}.{self._mac(purpose, value)}"

    def unsign(self, purpose: str, signed: str | None) -> str | None:
        """The value, or None when ``signed`` is missing, malformed or not signed by this key."""
        if not signed or len(signed) > MAX_SIGNED or not signed.isascii():
            return None  # compare_digest refuses non-ASCII text: such a value is never ours
        value, dot, mac = signed.rpartition(".")
        if not dot or not value:
            return None
        if not hmac.compare_digest(mac, self._mac(purpose, value)):
            return None
        return value


MAX_SIGNED = 4096
"""The longest signed value read back: a banner of 600 characters, base64, with its expiry
and MAC fits (a longer one is never ours)."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_id(token: str) -> str:
    """What the database stores for a session token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def check_csrf(expected: str, given: object) -> bool:
    return isinstance(given, str) and bool(given) and hmac.compare_digest(expected, given)
