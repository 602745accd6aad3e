"""The simulated field: players, strengths, special roles, and their rated game histories.

Everything is drawn from ``random.Random`` seeded with strings derived from the run's seed, so the
same seed gives the same field whatever else happens. The two seeded entrants of the config
(title holder, runner-up) are always in the field, so the Candidates get their seeded players.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from bot.sandbox.state import SandboxState
from rules.core.model import PlayerId, normalise_username
from rules.core.ruleset import Ruleset

__all__ = [
    "DemoPlayer",
    "Roster",
    "make_roster",
    "new_name",
    "new_strength",
    "rng_for",
    "seed_history",
]

SPARRING = "Sparring_Partner"
"""The account every history game is played against (its own games do not matter)."""

_FIRST = (
    "Anti", "Ghost", "Zugzwang", "Giveaway", "Suicide", "Losing", "Forced", "Capture", "Sac",
    "Pawn", "Rook", "Knight", "Bishop", "Queen", "King", "Endgame", "Opening", "Tempo",
)  # fmt: skip
_SECOND = (
    "Fox", "Owl", "Lynx", "Otter", "Heron", "Wolf", "Crane", "Hare", "Mole", "Stoat", "Wren",
    "Newt", "Pike", "Toad", "Vole", "Yak",
)  # fmt: skip


def rng_for(seed: int, *parts: object) -> random.Random:
    """A generator for one decision: the same (seed, parts) always draws the same numbers.

    String seeds are hashed with SHA-512 by ``random``, independent of ``PYTHONHASHSEED``, so a
    decision never depends on the order in which decisions were taken (or on a restart).
    """
    return random.Random("|".join(str(p) for p in (seed, *parts)))


@dataclass(frozen=True, slots=True)
class DemoPlayer:
    username: str
    strength: int
    online: bool = True
    """Shown online by ``/api/users/status``; the no-show player never is."""

    @property
    def id(self) -> PlayerId:
        return normalise_username(self.username)


@dataclass(frozen=True, slots=True)
class Roster:
    players: tuple[DemoPlayer, ...]
    absentee: PlayerId | None
    """Misses one qualification match (rules 6.3: a no-show), the one of :attr:`no_show_round`."""
    no_show_round: int
    withdrawer: PlayerId | None
    """Withdraws from the qualification after :attr:`withdraw_after` rounds (rules 8.i)."""
    withdraw_after: int

    def player(self, player: str) -> DemoPlayer:
        pid = normalise_username(player)
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(player)

    def strength(self, player: str) -> int:
        return self.player(player).strength


def new_name(rng: random.Random) -> str:
    """A generated player's name (it may be taken: the caller draws again)."""
    return f"{rng.choice(_FIRST)}{rng.choice(_SECOND)}{rng.randrange(10, 100)}"


def new_strength(rng: random.Random) -> int:
    """A generated (not seeded) player's strength."""
    return max(1300, min(2450, int(rng.gauss(1950, 180))))


def make_roster(count: int, seed: int, ruleset: Ruleset) -> Roster:
    """``count`` players: the config's seeded entrants, then generated names."""
    if count < 8:
        raise ValueError("a demo season needs at least 8 players")
    rng = rng_for(seed, "roster")
    seeded = [n for n in (ruleset.seeding.title_holder, ruleset.seeding.runner_up) if n]
    names: list[str] = list(seeded[:count])
    taken = {normalise_username(n) for n in names}
    while len(names) < count:
        name = new_name(rng)
        if normalise_username(name) not in taken:
            taken.add(normalise_username(name))
            names.append(name)
    strengths = [2500 - 40 * i if i < len(seeded) else new_strength(rng) for i in range(count)]
    others = sorted(range(len(seeded), count), key=lambda i: names[i].lower())
    withdrawer = names[others[rng.randrange(len(others))]] if len(others) > 4 else None
    remaining = [i for i in others if names[i] != withdrawer]
    absentee = names[remaining[rng.randrange(len(remaining))]] if remaining else None
    players = tuple(
        DemoPlayer(names[i], strengths[i], online=names[i] != absentee) for i in range(count)
    )
    return Roster(
        players=players,
        absentee=None if absentee is None else normalise_username(absentee),
        no_show_round=2,
        withdrawer=None if withdrawer is None else normalise_username(withdrawer),
        withdraw_after=3,
    )


def seed_history(state: SandboxState, roster: Roster, seed: int, ruleset: Ruleset) -> int:
    """Accounts and rated antichess histories on the sandbox, so ``registration check`` computes
    every seeding rating from exported games (rules 2.i, 3.v.3). Returns the games created."""
    e = ruleset.eligibility
    variant = ruleset.time_control.variant
    created = e.account_created_before - dt.timedelta(days=400)
    state.add_user(SPARRING, created_at=created, antichess_rating=1900)
    total = 0
    span = (e.games_before - dt.timedelta(days=1)) - (e.peak_window_start - dt.timedelta(days=60))
    for player in sorted(roster.players, key=lambda p: p.id):
        rng = rng_for(seed, "history", player.id)
        state.add_user(
            player.username,
            created_at=created + dt.timedelta(days=rng.randrange(0, 300)),
            antichess_rating=player.strength - 40,
            online=player.online,
        )
        games = 104 + rng.randrange(0, 20)
        for k in range(games):
            start = e.peak_window_start - dt.timedelta(days=60) + span * (k / games)
            start = start.replace(second=0, microsecond=0)
            expected = 1 / (1 + 10 ** ((1900 - player.strength) / 400))
            won = rng.random() < expected
            white = k % 2 == 0
            game = state.create_game(
                player.username if white else SPARRING,
                SPARRING if white else player.username,
                variant=variant,
                rated=True,
                clock_limit=ruleset.time_control.limit_seconds,
                clock_increment=ruleset.time_control.increment_seconds,
                created_at=start,
            )
            state.start_game(game.id)
            winner = "white" if won == white else "black"
            state.finish_game(
                game.id, status="resign", winner=winner, at=start + dt.timedelta(minutes=6)
            )
            total += 1
    return total
