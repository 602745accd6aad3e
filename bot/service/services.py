"""Every application service, built once by ``bot/app.py`` (:func:`bot.app.bootstrap`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.config import Config
from bot.notify import Notifier
from bot.runtime.clock import Clock
from bot.runtime.deadlines import Handler
from bot.service.broadcasts import Broadcasts
from bot.service.challenges import GameChallenges
from bot.service.doctor import DoctorService
from bot.service.forum import Forum
from bot.service.intake import Intake
from bot.service.player_tokens import PlayerTokens
from bot.service.players import Players
from bot.service.privacy import PlayerData
from bot.service.registration import Registration
from bot.service.registration_queue import RegistrationChecks
from bot.service.results import MatchListeners, Results
from bot.service.stages.armageddon import Armageddons
from bot.service.stages.armageddon_games import ArmageddonGames
from bot.service.stages.exits import Exits
from bot.service.stages.knockout import Knockout
from bot.service.stages.qualification import Qualification
from bot.service.stages.registry import Progression
from bot.service.stages.rounds import StageRounds
from bot.service.tournament import Tournament
from bot.service.weekly.conduct import Conduct
from bot.service.weekly.decisions import Decisions
from bot.service.weekly.handlers import WeeklyDeadlines
from bot.service.weekly.publication import Publication
from bot.service.weekly.texts import PlayerTexts
from storage.db import Database

__all__ = ["Services"]


@dataclass(frozen=True, slots=True)
class Services:
    """What the adapters call. Each operation takes the caller's unit of work."""

    config: Config
    clock: Clock
    db: Database
    notifier: Notifier
    tournament: Tournament
    players: Players
    results: Results
    match_listeners: MatchListeners
    intake: Intake
    publication: Publication
    texts: PlayerTexts
    conduct: Conduct
    decisions: Decisions
    weekly_deadlines: WeeklyDeadlines
    qualification: Qualification
    stage_rounds: StageRounds
    progression: Progression
    knockout: Knockout
    armageddons: Armageddons
    armageddon_games: ArmageddonGames
    exits: Exits
    forum: Forum
    registration: Registration | None
    """``None`` without a Lichess client (the CLI's commands that need none)."""
    deadline_handlers: Mapping[str, Handler]
    """The handler of every deadline kind, for the deadline runner."""
    challenges: GameChallenges | None = None
    """The match games' open challenges (they need Lichess to be made)."""
    broadcasts: Broadcasts | None = None
    """The stages' live broadcasts (``None`` without Lichess or without a stage to follow)."""
    doctor: DoctorService | None = None
    """``acwc doctor``'s checks of the bot's account, token and team (they need Lichess)."""
    player_tokens: PlayerTokens | None = None
    """Players who let the bot start their games (bulk pairing), with their sealed tokens."""
    player_data: PlayerData | None = None
    """A player's data: its download, and its removal once a TD confirms it (issue 28)."""
    registration_checks: RegistrationChecks | None = None
    """Players' own eligibility checks, run in the background by the leader (with Lichess)."""
