"""The configuration: a TOML file read into frozen dataclasses, secrets from the environment.

``load_config(path, environ)`` raises :class:`ConfigError` naming the key and what is wrong:
an unknown key, a wrong type, or an impossible value. Every key is documented in
``config.example.toml``; every rules key defaults to the 2021 regulations.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import math
import re
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from rules.core.ruleset import MatchFormat, Ruleset, StageKind, Tiebreak

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A Lichess username as lila accepts an existing account's (its ``historicalUsernameRegex`` and
# the 2-30 characters of ``historicalUsernameConstraints``, modules/user UserForm.scala): new
# accounts get 2-20 characters, older ones kept up to 30; never one character.
USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,28}[A-Za-z0-9]$")
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///acwc.db"
SANDBOX = "sandbox"
LICHESS_KEEPALIVE_SECONDS = 70.0
"""How long a Lichess game export may stay silent between lines: lila's ``GameApiV2`` sends a
keep-alive every 70 s (Play's idle timeout is 75 s)."""
MAX_MERGE_WINDOW_SECONDS = 600
"""The longest a DM may wait for others to the same player (``[outbox] merge_window_seconds``)."""
SECRET_ENV = {
    "lichess_token": "ACWC_LICHESS_TOKEN",
    "session_secret": "ACWC_SESSION_SECRET",
    "token_key": "ACWC_TOKEN_KEY",
}


class ConfigError(ValueError):
    """A config file that cannot be used. ``key`` is the dotted key at fault ("" for the file)."""

    def __init__(self, key: str, problem: str) -> None:
        self.key = key
        self.problem = problem
        super().__init__(f"{key}: {problem}" if key else problem)


@dataclass(frozen=True, slots=True)
class Secrets:
    """Read from the environment only, never from a file; ``repr`` shows no value."""

    lichess_token: str | None = field(default=None, repr=False)
    session_secret: str | None = field(default=None, repr=False)
    token_key: str | None = field(default=None, repr=False)
    """The Fernet key that encrypts the players' stored Lichess tokens (bulk pairing)."""


DEFAULT_TDS = ("ODMWND", "Shiaxou")
"""The 2021 Tournament Directors (rules 1.2): what a config without a ``tds`` key keeps."""


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str = "Lichess Antichess World Championship"
    tds: tuple[str, ...] = DEFAULT_TDS
    team: str | None = None  # Lichess team id for team updates
    broadcast_url: str | None = None
    """The Lichess broadcast of the championship's games, named in every pairings post."""
    forum_posts_per_round: int = 1
    """Forum drafts a round: 1 (its pairings post, which also carries the previous round's
    results and standings; a stage's last round gets a closing post), 2 (its pairings post and
    its closing post) or 0 (none): :mod:`bot.service.forum`."""
    publish_fixed_rounds: bool = True
    """The later stages' rounds (fixed when the TDs advance the stage, rules 4.4) go out on
    their publication day by themselves; false: a TD approves each one."""
    digest_time: dt.time = dt.time(8, 0)
    """When the daily digest of the TDs' information (no decision needed) goes out, UTC."""


@dataclass(frozen=True, slots=True)
class RegistrationConfig:
    """The window in which players register themselves on the web (None: closed): the config's
    is the first season's; a later season keeps its own (``tournaments.registration_opens``)."""

    opens: dt.datetime | None = None
    closes: dt.datetime | None = None

    def is_open(self, now: dt.datetime) -> bool:
        return (
            self.opens is not None and self.closes is not None and self.opens <= now < self.closes
        )


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    database_url: str = DEFAULT_DATABASE_URL
    lichess_url: str = SANDBOX  # "sandbox": start the bundled fake Lichess
    bot_account: str = "acwc-bot"
    web_host: str = "127.0.0.1"
    web_port: int = 8080
    ops_host: str = "127.0.0.1"
    """Where ``/healthz`` and ``/metrics`` are served: a listener of their own, on this
    machine only unless said otherwise (they tell the season's state to whoever asks)."""
    ops_port: int = 8081
    """0: any free port (the log says which)."""
    public_url: str = "http://127.0.0.1:8080"
    request_timeout_seconds: float = 20.0
    stream_timeout_seconds: float = 90.0
    """How long a streamed Lichess answer (a game export) may be silent: above Lichess's
    keep-alive interval (:data:`LICHESS_KEEPALIVE_SECONDS`)."""
    log_level: str = "INFO"
    room_actions_limit: int = 10
    """How many actions one player may send from the match room in ``room_actions_minutes``:
    a flood of offers and withdrawals would otherwise flood the opponent's inbox."""
    room_actions_minutes: int = 5

    @property
    def uses_sandbox(self) -> bool:
        return self.lichess_url == SANDBOX

    @property
    def uses_local_lichess(self) -> bool:
        """The bundled sandbox, or a sandbox another process serves on this machine."""
        return self.uses_sandbox or bool(
            re.match(r"^http://(127\.0\.0\.1|localhost)(:\d+)?(/|$)", self.lichess_url)
        )


@dataclass(frozen=True, slots=True)
class GamesConfig:
    """How the match games are played on Lichess."""

    event: str = "ACWC 2021"
    """The short name of the event in the challenges' and the broadcast's names."""
    challenges: bool = True
    """The bot makes each match game's open challenge for the two players (the link is in the
    room and the agreed-time messages)."""
    broadcast_stages: tuple[StageKind, ...] = (
        StageKind.CANDIDATES,
        StageKind.SEMIFINAL,
        StageKind.FINAL,
        StageKind.THIRD_PLACE,
    )
    """The stages followed by a live Lichess broadcast, a round per week (empty: none)."""
    armageddon_challenge_lifetime: dt.timedelta = dt.timedelta(days=7)
    """How long the armageddon game's challenge stays open once the colours are decided."""
    bulk_pairing: bool = True
    """A player may let the bot start their games (on their account page; their token is kept
    encrypted with ``ACWC_TOKEN_KEY``); when both players of a match did, Lichess creates each
    game at its time by bulk pairing (the bot's token needs ``challenge:bulk``), else the open
    challenge stays."""


@dataclass(frozen=True, slots=True)
class OutboxConfig:
    """How the players' notices go out."""

    merge_window_seconds: int = 90
    """A DM to a player waits this long after it is written, and every other DM to them written
    meanwhile goes out with it as one message (0: each goes at once)."""

    late_after_minutes: int = 60
    """``/healthz`` says ``degraded`` while a notice due this long ago has not gone out."""

    @property
    def merge_window(self) -> dt.timedelta:
        return dt.timedelta(seconds=self.merge_window_seconds)

    @property
    def late_after(self) -> dt.timedelta:
        return dt.timedelta(minutes=self.late_after_minutes)


@dataclass(frozen=True, slots=True)
class Config:
    tournament: TournamentConfig = field(default_factory=TournamentConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    rules: Ruleset = field(default_factory=Ruleset)
    registration: RegistrationConfig = field(default_factory=RegistrationConfig)
    secrets: Secrets = field(default_factory=Secrets)
    source: Path | None = None

    def lichess_token(self) -> str | None:
        """The bot's token for a command that talks to Lichess: ``None`` on the sandbox (it
        makes its own); on a real Lichess a missing token is a :class:`ConfigError`. Commands
        that do not talk to Lichess never ask, so backups and listings run without it."""
        if self.service.uses_sandbox:
            return None
        if self.secrets.lichess_token is None:
            raise ConfigError(
                "service.lichess_url",
                f"this command talks to Lichess and needs the bot's token in "
                f"{SECRET_ENV['lichess_token']}",
            )
        return self.secrets.lichess_token

    def is_td(self, username: str) -> bool:
        return username.lower() in {td.lower() for td in self.tournament.tds}

    def room_url(self, match_id: int) -> str:
        """The match room link every notice carries."""
        return f"{self.service.public_url.rstrip('/')}/match/{match_id}"


# --- value readers: each takes the raw TOML value and returns the typed one or raises ---


class _Bad(Exception):
    """A value of the wrong shape; the loader adds the key."""


def _type_name(value: object) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _read_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"must be an integer, not {_type_name(value)}")
    return value


def _read_float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"must be a number, not {_type_name(value)}")
    if not math.isfinite(value):
        raise _Bad(f"must be a finite number, not {value}")
    return float(value)


def _read_bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, not {_type_name(value)}")
    return value


def _read_str(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be a string, not {_type_name(value)}")
    return value


def _read_fraction(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"must be a number such as 5.5, not {_type_name(value)}")
    if not math.isfinite(value):
        raise _Bad(f"must be a number such as 5.5, not {value}")
    result = Fraction(str(value))
    if result.denominator not in (1, 2):
        raise _Bad(f"must be a whole or half point, not {value}")
    return result


_DURATION = re.compile(
    r"^\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m(?:in)?)?\s*(?:(\d+)\s*s)?\s*$"
)


def _read_duration(value: object) -> dt.timedelta:
    text = _read_str(value) if not isinstance(value, int) or isinstance(value, bool) else None
    if text is None:
        raise _Bad('must be a duration string such as "3h", "10m" or "1h30m", not an integer')
    match = _DURATION.match(text)
    if not match or not any(match.groups()):
        raise _Bad(f'must be a duration such as "3h", "10m" or "1h30m", not {text!r}')
    d, h, m, s = (int(g) if g else 0 for g in match.groups())
    return dt.timedelta(days=d, hours=h, minutes=m, seconds=s)


def _read_time(value: object) -> dt.time:
    if isinstance(value, dt.time):
        return value
    text = _read_str(value)
    try:
        parsed = dt.time.fromisoformat(text)
    except ValueError:
        raise _Bad(f'must be a UTC time of day such as "23:59", not {text!r}') from None
    if parsed.tzinfo is not None:
        raise _Bad("must be a UTC time without a zone (all times are UTC)")
    return parsed


def _read_date(value: object) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    text = _read_str(value)
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise _Bad(f"must be a date such as 2021-10-12, not {text!r}") from None


def _read_datetime(value: object) -> dt.datetime:
    if isinstance(value, dt.datetime):
        parsed = value
    else:
        text = _read_str(value)
        try:
            parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise _Bad(
                f"must be a UTC date-time such as 2021-03-01T00:00:00Z, not {text!r}"
            ) from None
    if parsed.tzinfo is None:
        raise _Bad("must say it is UTC (end it with Z)")
    if parsed.utcoffset() != dt.timedelta(0):
        raise _Bad("must be in UTC (end it with Z); other zones are not accepted")
    return parsed.astimezone(dt.UTC)


def _read_weekday(value: object) -> int:
    text = _read_str(value).strip().lower()
    if text not in WEEKDAYS:
        raise _Bad(f'must be a weekday name such as "friday", not {value!r}')
    return WEEKDAYS.index(text)


def _read_username(value: object) -> str:
    text = _read_str(value)
    if not USERNAME.match(text):
        raise _Bad(f"{text!r} is not a Lichess username")
    return text


def _read_usernames(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _Bad(f"must be a list of Lichess usernames, not {_type_name(value)}")
    names = tuple(_read_username(v) for v in value)
    lowered = [n.lower() for n in names]
    if len(set(lowered)) != len(lowered):
        raise _Bad("lists a username twice")
    return names


def _read_tiebreak(value: object) -> Tiebreak:
    text = _read_str(value)
    try:
        return Tiebreak(text)
    except ValueError:
        choices = ", ".join(repr(t.value) for t in Tiebreak)
        raise _Bad(f"must be one of {choices}, not {text!r}") from None


def _read_stages(value: object) -> tuple[StageKind, ...]:
    if not isinstance(value, list):
        raise _Bad(f"must be a list of stages, not {_type_name(value)}")
    stages: list[StageKind] = []
    for item in value:
        text = _read_str(item)
        try:
            stage = StageKind(text)
        except ValueError:
            choices = ", ".join(repr(k.value) for k in StageKind)
            raise _Bad(f"must list stages among {choices}, not {text!r}") from None
        if stage in stages:
            raise _Bad(f"lists {text!r} twice")
        stages.append(stage)
    return tuple(stages)


_READERS: dict[Any, Any] = {
    int: _read_int,
    float: _read_float,
    bool: _read_bool,
    str: _read_str,
    Fraction: _read_fraction,
    dt.timedelta: _read_duration,
    dt.time: _read_time,
    dt.date: _read_date,
    dt.datetime: _read_datetime,
    Tiebreak: _read_tiebreak,
}


def _reader_for(name: str, annotation: Any) -> Any:
    if name.endswith("_weekday"):
        return _read_weekday
    if name == "broadcast_stages":
        return _read_stages
    if name in ("tds", "previous_final_order"):
        return _read_usernames
    if name in ("title_holder", "runner_up", "bot_account"):
        return _read_username
    return _READERS.get(annotation)


def _optional_inner(annotation: Any) -> Any | None:
    """``X | None`` -> X; anything else -> None."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return args[0]
    return None


_NONE_WORDS = ("none", "")


def _build(default: Any, table: Mapping[str, Any], prefix: str) -> Any:
    """A copy of dataclass instance ``default`` with the keys of ``table`` read into it."""
    cls = type(default)
    if not isinstance(table, Mapping):
        raise ConfigError(prefix, f"must be a table, not {_type_name(table)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    values: dict[str, Any] = {}
    for key, raw in table.items():
        dotted = f"{prefix}.{key}" if prefix else key
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(dotted, f"unknown key (known keys here: {known})")
        annotation = hints[key]
        if dataclasses.is_dataclass(annotation):
            values[key] = _build(getattr(default, key), raw, dotted)
            continue
        inner = _optional_inner(annotation)
        if (
            inner is not None
            and isinstance(raw, str | bool)
            and str(raw).lower() in ("none", "false")
        ):
            values[key] = None
            continue
        reader = _reader_for(key, inner if inner is not None else annotation)
        if reader is None:  # pragma: no cover - a field type this loader does not know
            raise ConfigError(dotted, "cannot be set from the config file")
        try:
            values[key] = reader(raw)
        except _Bad as e:
            raise ConfigError(dotted, str(e)) from None
    return dataclasses.replace(default, **values)


def _check_format(key: str, fmt: MatchFormat) -> None:
    if fmt.games < 1:
        raise ConfigError(f"{key}.games", f"must be at least 1, not {fmt.games}")
    if fmt.clinch_at is not None:
        half = Fraction(fmt.games, 2)
        if fmt.clinch_at > fmt.games:
            raise ConfigError(
                f"{key}.clinch_at",
                f"{float(fmt.clinch_at):g} is above the match length of {fmt.games} games",
            )
        if fmt.clinch_at <= half:
            raise ConfigError(
                f"{key}.clinch_at",
                f"{float(fmt.clinch_at):g} does not pass half of {fmt.games} games, "
                "so both players could reach it",
            )
    if fmt.max_weeks < 1:
        raise ConfigError(f"{key}.max_weeks", f"must be at least 1, not {fmt.max_weeks}")
    if fmt.max_weeks > 1 and fmt.tiebreak is not Tiebreak.REPEAT_THEN_ARMAGEDDON:
        raise ConfigError(
            f"{key}.max_weeks", 'only a "repeat_then_armageddon" tiebreak repeats a match'
        )


def _positive(key: str, value: float | dt.timedelta, *, allow_zero: bool = False) -> None:
    zero: Any = dt.timedelta(0) if isinstance(value, dt.timedelta) else 0
    if value < zero or (value == zero and not allow_zero):
        raise ConfigError(key, f"must be {'zero or ' if allow_zero else ''}positive, not {value}")


def _check_service_side(config: Config) -> None:
    posts = config.tournament.forum_posts_per_round
    if posts not in (0, 1, 2):
        raise ConfigError(
            "tournament.forum_posts_per_round",
            f"must be 0, 1 (the pairings post) or 2 (pairings and closing post), not {posts}",
        )
    url = config.tournament.broadcast_url
    if url is not None and not re.match(r"^https?://[^\s/]+/\S*$", url):
        raise ConfigError("tournament.broadcast_url", f"must be a web address, not {url!r}")
    reg = config.registration
    if (reg.opens is None) != (reg.closes is None):
        missing = "closes" if reg.closes is None else "opens"
        raise ConfigError(f"registration.{missing}", "give both opens and closes, or neither")
    if reg.opens is not None and reg.closes is not None and reg.closes <= reg.opens:
        raise ConfigError("registration.closes", "must be after registration.opens")


def _check(config: Config) -> None:
    _check_service_side(config)
    _check_match_rules(config.rules)
    _check_stage_rules(config.rules)
    _check_service(config)


def _check_match_rules(r: Ruleset) -> None:
    """The match formats, the time control, the offers, the conduct and the armageddon."""
    for kind in StageKind:
        _check_format(f"rules.formats.{kind.value}", r.formats.for_stage(kind))
    if r.formats.candidates.tiebreak is not Tiebreak.NONE:
        raise ConfigError(
            "rules.formats.candidates.tiebreak", 'candidates matches may end tied: use "none"'
        )
    tc = r.time_control
    _positive("rules.time_control.limit_seconds", tc.limit_seconds)
    _positive("rules.time_control.increment_seconds", tc.increment_seconds, allow_zero=True)
    o = r.offers
    _positive("rules.offers.required_offers", o.required_offers)
    _positive("rules.offers.min_gap", o.min_gap, allow_zero=True)
    _positive("rules.offers.max_per_date", o.max_per_date)
    _positive("rules.offers.reply_within", o.reply_within)
    c = r.conduct
    for name in ("no_show_grace", "no_show_second_alert", "break_length", "long_pause"):
        _positive(f"rules.conduct.{name}", getattr(c, name))
    if c.no_show_second_alert <= c.no_show_grace:
        raise ConfigError(
            "rules.conduct.no_show_second_alert", "must come after rules.conduct.no_show_grace"
        )
    _positive("rules.conduct.forfeit_limit", c.forfeit_limit)
    a = r.armageddon
    _positive("rules.armageddon.black_seconds", a.black_seconds)
    _positive("rules.armageddon.min_white_seconds", a.min_white_seconds)
    if a.min_white_seconds > a.black_seconds:
        raise ConfigError(
            "rules.armageddon.min_white_seconds",
            f"{a.min_white_seconds} s is more than Black's {a.black_seconds} s",
        )
    _positive("rules.armageddon.bid_window", a.bid_window)


def _check_stage_rules(r: Ruleset) -> None:
    """The stages' sizes, the play-in, the seeding and the eligibility window."""
    s = r.stages
    if s.pool_size < 2:
        raise ConfigError("rules.stages.pool_size", f"must be at least 2, not {s.pool_size}")
    _positive("rules.stages.candidates_meetings", s.candidates_meetings)
    if s.qualifiers < 1:
        raise ConfigError("rules.stages.qualifiers", f"must be at least 1, not {s.qualifiers}")
    if r.formats.play_in.tiebreak is not Tiebreak.NONE:
        raise ConfigError(
            "rules.formats.play_in.tiebreak", 'a tied play-in match stands: use "none"'
        )
    if not 0 <= s.play_in_matches <= s.qualifiers:
        raise ConfigError(
            "rules.stages.play_in_matches",
            f"must be between 0 and the {s.qualifiers} qualifiers, not {s.play_in_matches}",
        )
    seeded = [n for n in (r.seeding.title_holder, r.seeding.runner_up) if n]
    if len(seeded) == 2 and seeded[0].lower() == seeded[1].lower():
        raise ConfigError("rules.seeding.runner_up", "is the same player as the title holder")
    if s.qualifiers + len(seeded) > 2 * s.pool_size:
        raise ConfigError(
            "rules.stages.qualifiers",
            f"{s.qualifiers} qualifiers and {len(seeded)} seeded entrants do not fit "
            f"two pools of {s.pool_size}",
        )
    e = r.eligibility
    if e.peak_window_start >= e.peak_window_end:
        raise ConfigError(
            "rules.eligibility.peak_window_start",
            "must be before rules.eligibility.peak_window_end",
        )


def _check_service(config: Config) -> None:
    """The database, Lichess, the web port, the timeouts, the outbox and the log level."""
    url = config.service.database_url
    if not (url.startswith("sqlite+aiosqlite://") or url.startswith("postgresql+asyncpg://")):
        raise ConfigError(
            "service.database_url",
            f"must start with sqlite+aiosqlite:// or postgresql+asyncpg://, not {url!r}",
        )
    lichess = config.service.lichess_url
    if lichess != SANDBOX and not re.match(r"^https?://[^\s/]+", lichess):
        raise ConfigError(
            "service.lichess_url", f'must be "sandbox" or an http(s) URL, not {lichess!r}'
        )
    if not 0 < config.service.web_port < 65536:
        raise ConfigError("service.web_port", f"must be a TCP port, not {config.service.web_port}")
    if not 0 <= config.service.ops_port < 65536:
        raise ConfigError("service.ops_port", f"must be a TCP port, not {config.service.ops_port}")
    if config.service.ops_port == config.service.web_port:
        raise ConfigError(
            "service.ops_port",
            f"must differ from service.web_port ({config.service.web_port}): the pages' port "
            "serves the pages only",
        )
    _positive("service.request_timeout_seconds", config.service.request_timeout_seconds)
    _positive("service.room_actions_limit", config.service.room_actions_limit)
    _positive("service.room_actions_minutes", config.service.room_actions_minutes)
    _positive("outbox.late_after_minutes", config.outbox.late_after_minutes)
    window = config.outbox.merge_window_seconds
    if not 0 <= window <= MAX_MERGE_WINDOW_SECONDS:
        raise ConfigError(
            "outbox.merge_window_seconds",
            f"must be between 0 and {MAX_MERGE_WINDOW_SECONDS} (a notice may wait no longer), "
            f"not {window}",
        )
    if not config.service.stream_timeout_seconds > LICHESS_KEEPALIVE_SECONDS:
        raise ConfigError(
            "service.stream_timeout_seconds",
            f"must be above Lichess's keep-alive interval of {LICHESS_KEEPALIVE_SECONDS:g} s "
            f"(a slow export is silent that long), not {config.service.stream_timeout_seconds:g}",
        )
    if config.service.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(
            "service.log_level",
            f"must be DEBUG, INFO, WARNING or ERROR, not {config.service.log_level!r}",
        )


def _token_key(value: str | None) -> str | None:
    """A Fernet key: 32 bytes in URL-safe base64 (checked here without loading the library)."""
    if value is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(value.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raw = b""
    if len(raw) != 32:
        raise ConfigError(
            SECRET_ENV["token_key"],
            "must be a Fernet key: 32 random bytes in URL-safe base64 (44 characters), as "
            "cryptography's Fernet.generate_key() makes",
        )
    return value


def _secrets(environ: Mapping[str, str]) -> Secrets:
    return Secrets(
        lichess_token=environ.get(SECRET_ENV["lichess_token"]) or None,
        session_secret=environ.get(SECRET_ENV["session_secret"]) or None,
        token_key=_token_key(environ.get(SECRET_ENV["token_key"]) or None),
    )


def parse_config(
    data: Mapping[str, Any], environ: Mapping[str, str], *, source: Path | None = None
) -> Config:
    """Build a :class:`Config` from parsed TOML ``data``; raises :class:`ConfigError`."""
    for key in data:
        if key == "secrets" or key in SECRET_ENV:
            raise ConfigError(
                key,
                "secrets are read from the environment only "
                f"({', '.join(SECRET_ENV.values())}), never from the config file",
            )
    for section in ("tournament", "service"):
        for key in data.get(section, {}) if isinstance(data.get(section), Mapping) else ():
            if key in SECRET_ENV or "token" in key or "secret" in key:
                raise ConfigError(
                    f"{section}.{key}",
                    "secrets are read from the environment only "
                    f"({', '.join(SECRET_ENV.values())}), never from the config file",
                )
    allowed = {"tournament", "service", "games", "outbox", "rules", "registration"}
    for key in data:
        if key not in allowed:
            raise ConfigError(key, f"unknown section (known: {', '.join(sorted(allowed))})")
    config = Config(
        tournament=_build(TournamentConfig(), data.get("tournament", {}), "tournament"),
        service=_build(ServiceConfig(), data.get("service", {}), "service"),
        games=_build(GamesConfig(), data.get("games", {}), "games"),
        outbox=_build(OutboxConfig(), data.get("outbox", {}), "outbox"),
        rules=_build(Ruleset(), data.get("rules", {}), "rules"),
        registration=_build(RegistrationConfig(), data.get("registration", {}), "registration"),
        secrets=_secrets(environ),
        source=source,
    )
    _check(config)
    if not config.service.uses_sandbox and not config.tournament.tds:
        raise ConfigError(
            "tournament.tds",
            "a season on a real Lichess needs its TDs' Lichess usernames: every ruling is "
            "recorded under the TD who made it, and only a TD may log in to the desk",
        )
    if not config.service.uses_local_lichess and not config.tournament.team:
        raise ConfigError(
            "tournament.team",
            "a real Lichess needs the team the bot leads (with the Updates permission): "
            "without it most DMs to new conversations go over Lichess's daily budget and are lost",
        )
    return config


def load_config(path: Path | str | None, environ: Mapping[str, str]) -> Config:
    """Read the TOML file at ``path`` (``None``: the built-in defaults)."""
    if path is None:
        return parse_config({}, environ)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", f"config file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError("", f"cannot read config file {path}: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("", f"{path} is not valid TOML: {e}") from None
    return parse_config(data, environ, source=path)


def describe_rules(ruleset: Ruleset) -> dict[str, Any]:
    """The ruleset as plain JSON-able data (for `acwc tournament show` and audit snapshots)."""

    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, Fraction):
            return float(value)
        if isinstance(value, dt.timedelta):
            return value.total_seconds()
        if isinstance(value, dt.datetime | dt.date | dt.time):
            return value.isoformat()
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        return value

    result: dict[str, Any] = plain(ruleset)
    return result


def rules_over(base: Ruleset, table: Mapping[str, Any]) -> Ruleset:
    """``base`` with a season's own settings read over it: ``table`` as the config's
    ``[rules]`` table would write them (a :class:`ConfigError` names a key it cannot read)."""
    ruleset: Ruleset = _build(base, table, "rules")
    _check_match_rules(ruleset)
    _check_stage_rules(ruleset)
    return ruleset


def season_table(ruleset: Ruleset) -> dict[str, Any]:
    """What a season sets over the config's ``[rules]``, as that table writes it: its calendar's
    first pairings, its eligibility dates and its seeded entrants (read back by
    :func:`rules_over`)."""

    def utc(moment: dt.datetime) -> str:
        return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")

    elig = ruleset.eligibility
    moments = {f.name: getattr(elig, f.name) for f in dataclasses.fields(elig)}
    seeding = ruleset.seeding
    return {
        "calendar": {"first_publication": ruleset.calendar.first_publication.isoformat()},
        "eligibility": {k: utc(v) for k, v in moments.items() if isinstance(v, dt.datetime)},
        "seeding": {
            "title_holder": seeding.title_holder or "none",
            "runner_up": seeding.runner_up or "none",
            "previous_final_order": list(seeding.previous_final_order),
        },
    }
