from __future__ import annotations

import datetime as dt
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from bot.config import ConfigError, load_config, parse_config
from rules.core.ruleset import DEFAULT_RULESET, Tiebreak

ROOT = Path(__file__).resolve().parent.parent


def parse(text: str, environ: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return parse_config(tomllib.loads(text), environ or {})


def test_defaults_are_the_2021_regulations() -> None:
    config = load_config(None, {})
    r = config.rules
    assert r == DEFAULT_RULESET
    assert [r.formats.qualification.games, r.formats.candidates.games] == [10, 10]
    assert [r.formats.semifinal.games, r.formats.final.games] == [10, 12]
    assert r.formats.qualification.clinch_at == Fraction(11, 2)
    assert r.formats.candidates.clinch_at is None
    assert (r.time_control.limit_seconds, r.time_control.increment_seconds) == (120, 5)
    assert (r.time_control.variant, r.time_control.rated) == ("antichess", True)
    assert (r.offers.required_offers, r.offers.min_gap, r.offers.max_per_date) == (
        3,
        dt.timedelta(hours=3),
        2,
    )
    assert (r.offers.deadline_weekday, r.offers.deadline_time) == (4, dt.time(23, 59))
    assert r.offers.reply_within == dt.timedelta(hours=24)
    assert (r.calendar.publish_weekday, r.calendar.complete_weekday) == (1, 0)
    assert r.conduct.no_show_grace == dt.timedelta(minutes=10)
    assert r.conduct.forfeit_limit == 2
    assert (r.armageddon.black_seconds, r.armageddon.increment_seconds) == (180, 0)
    assert r.armageddon.black_draw_odds
    assert (r.stages.qualifiers, r.stages.pool_size) == (10, 6)
    assert r.formats.final.max_weeks == 3
    assert r.formats.final.tiebreak is Tiebreak.REPEAT_THEN_ARMAGEDDON
    assert config.service.uses_sandbox
    assert config.service.database_url.startswith("sqlite+aiosqlite://")
    assert config.tournament.tds == ("ODMWND", "Shiaxou")  # rules 1.2; the README promises it
    assert config.is_td("odmwnd")


def test_example_config_loads_and_sets_every_default() -> None:
    example = load_config(ROOT / "config.example.toml", {})
    assert example.rules == DEFAULT_RULESET
    assert example.tournament.tds == ("ODMWND", "Shiaxou")


def test_every_rules_key_is_documented_in_the_example() -> None:
    data = tomllib.loads((ROOT / "config.example.toml").read_text())
    import dataclasses

    def keys(obj: object, prefix: str) -> set[str]:
        out: set[str] = set()
        for f in dataclasses.fields(obj):  # type: ignore[arg-type]
            value = getattr(obj, f.name)
            if dataclasses.is_dataclass(value):
                out |= keys(value, f"{prefix}.{f.name}")
            else:
                out.add(f"{prefix}.{f.name}")
        return out

    def present(table: dict, prefix: str) -> set[str]:  # type: ignore[type-arg]
        out: set[str] = set()
        for k, v in table.items():
            if isinstance(v, dict):
                out |= present(v, f"{prefix}.{k}")
            else:
                out.add(f"{prefix}.{k}")
        return out

    assert keys(DEFAULT_RULESET, "rules") <= present(data["rules"], "rules")


def test_a_real_lichess_without_a_team_is_refused_with_the_reason() -> None:
    env = {"ACWC_LICHESS_TOKEN": "lip_x"}
    real = {"lichess_url": "https://lichess.org"}
    with pytest.raises(ConfigError) as e:
        parse_config({"service": real, "tournament": {"tds": ["ODMWND"]}}, env)
    assert e.value.key == "tournament.team"
    assert "daily budget" in str(e.value)
    with_team = {"service": real, "tournament": {"tds": ["ODMWND"], "team": "t"}}
    assert parse_config(with_team, env).tournament.team == "t"
    # a sandbox on this machine needs none
    assert parse_config({"service": {"lichess_url": "http://127.0.0.1:9"}}, env)


def test_secrets_come_from_the_environment() -> None:
    config = load_config(None, {"ACWC_LICHESS_TOKEN": "lip_x", "ACWC_SESSION_SECRET": "s3"})
    assert config.secrets.lichess_token == "lip_x"
    assert "lip_x" not in repr(config)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[rules]\nfoo = 1", "rules.foo", "unknown key"),
        ("[rulez]\nx = 1", "rulez", "unknown section"),
        ("[rules.offers]\nrequired_offers = 'three'", "rules.offers.required_offers", "integer"),
        ("[rules.offers]\nrequired_offers = true", "rules.offers.required_offers", "integer"),
        ("[rules.offers]\nrequired_offers = 0", "rules.offers.required_offers", "positive"),
        ("[rules.offers]\nmin_gap = 3", "rules.offers.min_gap", "duration"),
        ("[rules.offers]\nmin_gap = 'soon'", "rules.offers.min_gap", "duration"),
        ("[rules.offers]\ndeadline_weekday = 'fri'", "rules.offers.deadline_weekday", "weekday"),
        ("[rules.offers]\ndeadline_time = '25:00'", "rules.offers.deadline_time", "time of day"),
        (
            "[rules.formats.qualification]\nclinch_at = 11",
            "rules.formats.qualification.clinch_at",
            "above the match length",
        ),
        (
            "[rules.formats.qualification]\nclinch_at = 5",
            "rules.formats.qualification.clinch_at",
            "half",
        ),
        (
            "[rules.formats.qualification]\nclinch_at = 5.25",
            "rules.formats.qualification.clinch_at",
            "half point",
        ),
        (
            "[rules.formats.qualification]\nclinch_at = inf",
            "rules.formats.qualification.clinch_at",
            "5.5",
        ),
        ("[service]\nrequest_timeout_seconds = nan", "service.request_timeout_seconds", "finite"),
        ("[rules.formats.final]\ngames = 0", "rules.formats.final.games", "at least 1"),
        ("[rules.formats.final]\ntiebreak = 'coin'", "rules.formats.final.tiebreak", "one of"),
        ("[rules.formats.semifinal]\nmax_weeks = 2", "rules.formats.semifinal.max_weeks", "repeat"),
        (
            "[rules.formats.candidates]\ntiebreak = 'armageddon'",
            "rules.formats.candidates.tiebreak",
            "tied",
        ),
        (
            "[rules.conduct]\nno_show_second_alert = '5m'",
            "rules.conduct.no_show_second_alert",
            "after",
        ),
        (
            "[rules.armageddon]\nmin_white_seconds = 200",
            "rules.armageddon.min_white_seconds",
            "Black",
        ),
        ("[rules.stages]\npool_size = 1", "rules.stages.pool_size", "at least 2"),
        ("[rules.stages]\nqualifiers = 20", "rules.stages.qualifiers", "do not fit"),
        (
            "[rules.seeding]\ntitle_holder = 'Ab'\nrunner_up = 'ab'",
            "rules.seeding.runner_up",
            "same player",
        ),
        ("[rules.seeding]\ntitle_holder = 'not a name'", "rules.seeding.title_holder", "username"),
        (
            "[rules.eligibility]\ngames_before = 2021-09-01T00:00:00",
            "rules.eligibility.games_before",
            "UTC",
        ),
        (
            "[rules.eligibility]\ngames_before = 2021-09-01T02:00:00+02:00",
            "rules.eligibility.games_before",
            "UTC",
        ),
        (
            "[rules.eligibility]\npeak_window_start = 2022-01-01T00:00:00Z",
            "rules.eligibility.peak_window_start",
            "before",
        ),
        ("[tournament]\ntds = 'ODMWND'", "tournament.tds", "list"),
        ("[tournament]\ntds = ['ab', 'AB']", "tournament.tds", "twice"),
        ("[service]\ndatabase_url = 'mysql://x'", "service.database_url", "sqlite+aiosqlite"),
        ("[service]\nweb_port = 70000", "service.web_port", "port"),
        ("[service]\nops_port = 8080", "service.ops_port", "must differ from service.web_port"),
        ("[service]\nops_port = -1", "service.ops_port", "port"),
        ("[service]\nlichess_url = 'ftp://x'", "service.lichess_url", "http"),
        (
            "[tournament]\ntds = []\n[service]\nlichess_url = 'https://lichess.org'",
            "tournament.tds",
            "TDs' Lichess usernames",
        ),
        ("[service]\nlichess_token = 'lip_x'", "service.lichess_token", "environment"),
        ("[service]\nlog_level = 'LOUD'", "service.log_level", "DEBUG"),
        ("lichess_token = 'lip_x'", "lichess_token", "environment"),
        ("rules = 3", "rules", "table"),
        ("[tournament]\nforum_posts_per_round = 3", "tournament.forum_posts_per_round", "0, 1"),
        ("[tournament]\ndigest_time = 'dawn'", "tournament.digest_time", "time of day"),
        ("[tournament]\npublish_fixed_rounds = 'yes'", "tournament.publish_fixed_rounds", "true"),
        ("[registration]\nopens = 2021-09-01T00:00:00Z", "registration.closes", "both"),
        ("[registration]\ncloses = 2021-09-01T00:00:00Z", "registration.opens", "both"),
        (
            "[registration]\nopens = 2021-09-02T00:00:00Z\ncloses = 2021-09-01T00:00:00Z",
            "registration.closes",
            "after registration.opens",
        ),
        ("[registration]\nopens = 2021-09-01T00:00:00", "registration.opens", "UTC"),
        ("[registration]\nwhen = 1", "registration.when", "unknown key"),
        ("[tournament]\nbroadcast_url = 'lichess broadcast'", "tournament.broadcast_url", "web"),
    ],
)
def test_each_bad_key_is_named(text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse(text)
    assert info.value.key == key
    assert words in info.value.problem
    assert str(info.value).startswith(f"{key}: ")


def test_the_registration_window() -> None:
    config = parse("[registration]\nopens = 2021-09-01T00:00:00Z\ncloses = 2021-10-10T23:59:00Z")
    reg = config.registration
    assert not reg.is_open(dt.datetime(2021, 8, 31, 23, 59, tzinfo=dt.UTC))
    assert reg.is_open(dt.datetime(2021, 9, 1, tzinfo=dt.UTC))
    assert not reg.is_open(dt.datetime(2021, 10, 10, 23, 59, tzinfo=dt.UTC))
    assert not parse("").registration.is_open(dt.datetime(2021, 9, 1, tzinfo=dt.UTC))


def test_values_are_read_into_their_types() -> None:
    config = parse(
        """
        [tournament]
        name = "ACWC 2022"
        tds = ["ODMWND", "Shiaxou"]
        [rules.offers]
        min_gap = "2h30m"
        deadline_weekday = "Thursday"
        deadline_time = "20:00"
        [rules.formats.candidates]
        games = 12
        [rules.formats.qualification]
        clinch_at = "none"
        [rules.calendar]
        first_publication = 2022-10-11
        [rules.seeding]
        title_holder = "PepsiNGaming"
        runner_up = "none"
        previous_final_order = ["PepsiNGaming", "GrohochetGrom"]
        """
    )
    assert config.tournament.name == "ACWC 2022"
    assert config.is_td("odmwnd")
    assert config.rules.offers.min_gap == dt.timedelta(hours=2, minutes=30)
    assert config.rules.offers.deadline_weekday == 3
    assert config.rules.offers.deadline_time == dt.time(20, 0)
    assert config.rules.formats.candidates.games == 12
    assert config.rules.formats.qualification.clinch_at is None
    assert config.rules.calendar.first_publication == dt.date(2022, 10, 11)
    assert config.rules.seeding.previous_final_order == ("PepsiNGaming", "GrohochetGrom")
    assert config.rules.seeding.runner_up is None


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml", {})
    bad = tmp_path / "bad.toml"
    bad.write_text("[rules\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad, {})
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(binary, {})


def test_only_a_command_that_talks_to_lichess_asks_for_the_token() -> None:
    text = (
        "[tournament]\ntds = ['ODMWND']\nteam = 't'\n[service]\nlichess_url = 'https://lichess.org'"
    )
    config = parse_config(tomllib.loads(text), {})  # loads: a backup needs no token
    with pytest.raises(ConfigError) as info:
        config.lichess_token()
    assert info.value.key == "service.lichess_url"
    assert "ACWC_LICHESS_TOKEN" in info.value.problem
    with_token = parse_config(tomllib.loads(text), {"ACWC_LICHESS_TOKEN": "lip_x"})
    assert with_token.lichess_token() == "lip_x"
    assert parse_config({}, {}).lichess_token() is None  # the sandbox makes its own
