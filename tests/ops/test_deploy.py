"""deploy/ (issue 18): the compose file (service + PostgreSQL), its config and the systemd unit.

``docker compose config`` (or the older ``docker-compose config``) validates the compose file where
either is installed (the project's machine has docker-compose 1.29 from Debian, not the plugin);
the file is also read as YAML and checked for what it must hold. ``systemd-analyze verify`` checks
the unit where systemd is present."""

from __future__ import annotations

import base64
import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from bot.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ENV = {
    "ACWC_LICHESS_TOKEN": "lip_x",
    "ACWC_SESSION_SECRET": "y" * 40,
    "ACWC_TOKEN_KEY": base64.urlsafe_b64encode(bytes(32)).decode(),
}


def _compose() -> list[str] | None:
    """``docker compose`` (the plugin) or ``docker-compose``, whichever is installed."""
    docker = shutil.which("docker")
    if docker is not None:
        found = subprocess.run([docker, "compose", "version"], capture_output=True, check=False)
        if found.returncode == 0:
            return [docker, "compose"]
    old = shutil.which("docker-compose")
    return None if old is None else [old]


def test_the_compose_file_runs_two_services_on_postgresql_behind_a_healthy_database() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "bot", "bot-standby"}
    assert services["db"]["image"].startswith("postgres:")
    assert "pgdata" in compose["volumes"]
    for name in ("bot", "bot-standby"):
        bot = services[name]
        assert (DEPLOY / bot["build"]["context"] / bot["build"]["dockerfile"]).is_file()
        assert bot["depends_on"]["db"] == {"condition": "service_healthy"}
        assert set(bot["environment"]) == set(ENV)  # secrets from the environment, not the file
        command = bot["command"][-1]
        assert "db upgrade" in command
        assert command.endswith("acwc --log-format json --config /app/config.toml run")
        assert "/healthz" in bot["healthcheck"]["test"][-1]
    assert services["bot"]["ports"] != services["bot-standby"]["ports"]
    # the standby starts once the first is healthy: never two migrations at once
    assert services["bot-standby"]["depends_on"]["bot"] == {"condition": "service_healthy"}


def test_the_deploy_config_loads_and_points_at_the_compose_database() -> None:
    config = load_config(DEPLOY / "config.toml", ENV)
    assert config.service.database_url == "postgresql+asyncpg://acwc@db:5432/acwc"
    assert not config.service.uses_sandbox


@pytest.mark.skipif(_compose() is None, reason="neither docker compose nor docker-compose here")
def test_docker_compose_config_accepts_the_file_and_asks_for_the_secrets() -> None:
    compose = [*(_compose() or []), "-f", str(DEPLOY / "compose.yaml")]
    path = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
    subprocess.run([*compose, "config", "-q"], check=True, env={**ENV, **path})
    missing = subprocess.run([*compose, "config", "-q"], capture_output=True, text=True, env=path)
    assert missing.returncode != 0
    assert "set the bot account's Lichess token" in missing.stderr


def test_the_systemd_unit_runs_acwc_run_and_restarts_it() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(DEPLOY / "acwc-bot.service")
    service = unit["Service"]
    assert service["ExecStart"].endswith(
        "acwc --log-format json --config /etc/acwc-bot/config.toml run"
    )
    assert service["ExecStartPre"].endswith("db upgrade")
    assert service["Restart"] == "always"
    assert service["EnvironmentFile"] == "/etc/acwc-bot/env"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:
        found = subprocess.run(
            [analyze, "verify", str(DEPLOY / "acwc-bot.service")],
            capture_output=True,
            text=True,
            check=False,
        )
        # the one complaint allowed: the install path does not exist on a test machine
        complaints = [
            line for line in found.stderr.splitlines() if line and "is not executable" not in line
        ]
        assert complaints == []


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_the_systemd_unit_is_confined_to_an_exposure_under_3() -> None:
    found = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", str(DEPLOY / "acwc-bot.service")],
        capture_output=True,
        text=True,
        check=False,
    )
    score = re.search(r"Overall exposure level for acwc-bot\.service: ([0-9.]+)", found.stdout)
    assert score is not None, found.stdout[-2000:] + found.stderr
    assert float(score.group(1)) < 3.0, found.stdout


def test_the_systemd_unit_keeps_the_services_files_to_itself() -> None:
    text = (DEPLOY / "acwc-bot.service").read_text()
    for line in ("UMask=0077", "ProtectSystem=strict", "PrivateTmp=yes", "NoNewPrivileges=yes"):
        assert f"\n{line}\n" in text, line
    assert "\nCapabilityBoundingSet=\n" in text
