"""The process's logs: one line of text, or one JSON object a line (``--log-format json``), and
never a secret in either.

Every record passes :class:`Redact` before it is written: the values of the secrets the config
read from the environment (the Lichess token, the session secret) and anything shaped like a
Lichess token (``lip_…``) or an ``Authorization`` header's value are replaced by ``[redacted]``,
in the message, its arguments and a traceback alike.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["FORMATS", "JsonFormatter", "Redact", "setup_logging"]

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REDACTED = "[redacted]"
_SHAPED = re.compile(r"\blip_[A-Za-z0-9_]+|(?i:\b(?:bearer|token)[ =:]+)[A-Za-z0-9._~+/-]{8,}")


class Redact(logging.Filter):
    """Replaces secrets in a record's message (formatted with its arguments) and traceback."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return _SHAPED.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.clean(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.clean(record.exc_text)
        record.exc_info = None  # the cleaned text is what gets written
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, and the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False)


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (as logging's last resort
    does): a handler bound to the stream of the moment it was made writes into a closed one
    once that stream is swapped (a test's capture), from any thread that still logs."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def setup_logging(
    *, level: int | str = logging.WARNING, fmt: str = "text", secrets: Iterable[str | None] = ()
) -> None:
    """One handler on stderr for the root logger, in ``fmt``, dropping ``secrets``."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r}: use one of {', '.join(FORMATS)}")
    handler = _Stderr()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(Redact(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
