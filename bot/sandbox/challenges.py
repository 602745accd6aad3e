"""Open challenges on the fake Lichess: ``POST /api/challenge/open`` as lila has it
(``app/controllers/Challenge.scala``, ``modules/setup/src/main/SetupForm.scala``,
``modules/challenge/src/main/{Challenge,ChallengeApi,ChallengeJoiner}.scala``).

The call takes no token, or one with ``challenge:write`` (lila's ``AnonOrScoped``: a token sent
without the scope is a 403, checked by the app). ``users=A,B`` names exactly two players, whose
existence lila does not check; only they may join, and **A is White, B is Black**. Each player
clicks the link (``POST /_sandbox/challenges/{id}/join``): the first click makes that player the
challenger with the fixed colour, the second creates the game, which has the challenge's id, its
settings, and ``source: friend``, as ``ChallengeJoiner`` makes every challenge game; it starts at
once and goes out on the streams. An aborted game spends the id: joining again is refused, a new
challenge is needed. ``rules=noAbort`` is refused for an ordinary account, and so is a rated game
without a clock. A challenge lapses at ``expiresAt`` (24 hours by default, at most two weeks).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.sandbox.schemas import (
    GameClock,
    GameJson,
    VariantKey,
    from_millis,
    speed_of,
    user_id,
    variant_key,
)

__all__ = [
    "ChallengeError",
    "OpenChallenge",
    "accept_challenge",
    "challenge_open_json",
    "challenge_routes",
    "join_challenge",
]

DEFAULT_LIFETIME = dt.timedelta(hours=24)
MAX_LIFETIME = dt.timedelta(weeks=2)
CLOCK_LIMIT_MAX = 10800
INCREMENT_MAX = 60
_VARIANT_NAMES = {
    "standard": "Standard",
    "chess960": "Chess960",
    "crazyhouse": "Crazyhouse",
    "antichess": "Antichess",
    "atomic": "Atomic",
    "horde": "Horde",
    "kingOfTheHill": "King of the Hill",
    "racingKings": "Racing Kings",
    "threeCheck": "Three-check",
    "fromPosition": "From Position",
}


@dataclass
class OpenChallenge:
    """An open challenge: its settings, who may join (White first), and its game once joined."""

    id: str
    rated: bool
    clock: GameClock | None
    variant: VariantKey
    name: str | None
    users: tuple[str, str] | None
    created_at: dt.datetime
    expires_at: dt.datetime
    game_id: str | None = None
    clicked: str | None = None
    """The first player who clicked the link (the challenger), until the second clicks."""

    @property
    def url(self) -> str:
        return f"https://lichess.org/{self.id}"


def challenge_open_json(c: OpenChallenge) -> dict[str, Any]:
    """``ChallengeOpenJson``."""
    time_control: dict[str, Any] = {"type": "unlimited"}
    if c.clock is not None:
        limit, inc = c.clock.initial, c.clock.increment
        show = f"{limit // 60 if limit % 60 == 0 else limit / 60}+{inc}"
        time_control = {"type": "clock", "limit": limit, "increment": inc, "show": show}
    out: dict[str, Any] = {
        "id": c.id,
        "url": c.url,
        "status": "accepted" if c.game_id is not None else "created",
        "challenger": None,
        "destUser": None,
        "variant": {"key": c.variant, "name": _VARIANT_NAMES[c.variant]},
        "rated": c.rated,
        "speed": speed_of(c.clock),
        "timeControl": time_control,
        "color": "random",
        "finalColor": "white",
        "perf": {"name": _VARIANT_NAMES[c.variant]},
        "urlWhite": f"{c.url}?color=white",
        "urlBlack": f"{c.url}?color=black",
        "open": {"userIds": list(c.users)} if c.users is not None else {},
    }
    return out  # the name is shown on the challenge page; ``ChallengeOpenJson`` has no field


class ChallengeError(ValueError):
    """A form Lichess would refuse (HTTP 400), with its message."""


def _int(form: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    raw = form.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ChallengeError(f"{name}: not an integer: {raw}") from None
    if not low <= value <= high:
        raise ChallengeError(f"{name}: must be between {low} and {high}")
    return value


def read_open_challenge(
    form: Mapping[str, str], *, known: Callable[[str], bool], now: dt.datetime, new_id: str
) -> OpenChallenge:
    """The challenge ``form`` asks for; raises :class:`ChallengeError` as Lichess answers 400."""
    limit = _int(form, "clock.limit", 0, CLOCK_LIMIT_MAX)
    increment = _int(form, "clock.increment", 0, INCREMENT_MAX)
    if (limit is None) != (increment is None):
        raise ChallengeError("clock: give both clock.limit and clock.increment")
    try:
        variant = variant_key(form.get("variant") or "standard")
    except ValueError as e:
        raise ChallengeError(f"variant: {e}") from None
    users: tuple[str, str] | None = None
    raw_users = form.get("users")
    if raw_users:
        names = [n.strip() for n in raw_users.split(",") if n.strip()]
        if len(names) != 2 or user_id(names[0]) == user_id(names[1]):
            raise ChallengeError("users: give two different usernames, separated by a comma")
        users = (user_id(names[0]), user_id(names[1]))  # lila does not check they exist
    rules = {r.strip() for r in (form.get("rules") or "").split(",") if r.strip()}
    if "noAbort" in rules:
        raise ChallengeError("rules: noAbort is for bulk pairings and official events only")
    rated = form.get("rated") == "true"
    if rated and limit is None:
        raise ChallengeError("Rated games need a clock (or days per turn)")
    expires = now + DEFAULT_LIFETIME
    raw_expiry = form.get("expiresAt")
    if raw_expiry:
        try:
            expires = from_millis(int(raw_expiry))
        except ValueError:
            raise ChallengeError(f"expiresAt: not a timestamp: {raw_expiry}") from None
        if expires <= now or expires > now + MAX_LIFETIME:
            raise ChallengeError("expiresAt: must be in the next two weeks")
    return OpenChallenge(
        id=new_id,
        rated=rated,
        clock=GameClock(limit, increment) if limit is not None and increment is not None else None,
        variant=variant,
        name=form.get("name") or None,
        users=users,
        created_at=now,
        expires_at=expires,
    )


def new_challenge_id(taken: Callable[[str], bool], made: int) -> str:
    """An 8-character id like Lichess's, drawn from how many challenges were made so far, so a
    seeded demo makes the same ids every run."""
    n = made
    while True:
        n += 1
        cid = f"ch{n:06d}"
        if not taken(cid):
            return cid


StateOf = Callable[[web.Request], Any]
"""The app's :class:`~bot.sandbox.state.SandboxState` of a request (``Any``: the state module
imports this one)."""
Error = Callable[[int, str], web.Response]


def accept_challenge(state: Any, challenge_id: str) -> GameJson:
    """Both players click the challenge's link, White first: its game starts. Raises as
    :func:`join_challenge`."""
    challenge = state.challenges[challenge_id]
    if challenge.users is None:
        raise ChallengeError("the sandbox joins only challenges restricted to two users")
    first = join_challenge(state, challenge_id, challenge.users[0])
    game = first or join_challenge(state, challenge_id, challenge.users[1])
    assert game is not None
    return game


def join_challenge(state: Any, challenge_id: str, user: str) -> GameJson | None:
    """``user`` clicks the challenge's link: the first click waits for the other player (returns
    ``None``), the second starts the game, with the challenge's id, settings and colours, and
    ``source: friend``. Raises ``KeyError`` for an unknown challenge and
    :class:`ChallengeError` for a lapsed, spent or foreign one."""
    challenge = state.challenges[challenge_id]
    uid = user_id(user)
    if challenge.game_id is not None:
        raise ChallengeError("The challenge has already been accepted")
    if state.now() >= challenge.expires_at:
        raise ChallengeError("The challenge has expired")
    if challenge.users is None:
        raise ChallengeError("the sandbox joins only challenges restricted to two users")
    if uid not in challenge.users:
        raise ChallengeError("This challenge is reserved for other players")
    if challenge.clicked is None or challenge.clicked == uid:
        challenge.clicked = uid
        return None
    white, black = (state._user(u).username for u in challenge.users)
    clock = challenge.clock
    game = state.create_game(
        white,
        black,
        variant=challenge.variant,
        rated=challenge.rated,
        clock_limit=None if clock is None else clock.initial,
        clock_increment=None if clock is None else clock.increment,
        game_id=challenge.id,
    )
    challenge.game_id = game.id
    started: GameJson = state.start_game(game.id)
    return started


def _refused_at_once(state: Any) -> tuple[int, str] | None:
    """A knob's refusal, or lila's limit of 500 open challenges in 10 minutes per IP
    (``limit.challenge``: the sandbox is one IP)."""
    if state.knobs.refuse_challenges:
        return 400, state.knobs.refuse_challenges
    if not state.within_limit("challenge.create.ip", "127.0.0.1"):
        state.refused("/api/challenge/open", 429)
        return 429, "Too many requests. Try again later."
    return None


def challenge_routes(state_of: StateOf, error: Error, authed: Any) -> list[web.RouteDef]:
    """The routes, given how the app finds its state, writes an error and checks tokens."""

    async def challenge_open(request: web.Request, token: Any) -> web.StreamResponse:
        """POST /api/challenge/open"""
        state = state_of(request)
        form = await request.post()
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        at_once = _refused_at_once(state)
        if at_once is not None:
            return error(*at_once)
        try:
            challenge = read_open_challenge(
                fields,
                known=lambda uid: uid in state.users,
                now=state.now(),
                new_id=new_challenge_id(
                    lambda c: c in state.challenges or c in state.games, len(state.challenges)
                ),
            )
        except ChallengeError as e:
            state.refused(request.path, 400)
            return error(400, str(e))
        state.challenges[challenge.id] = challenge
        return web.json_response(challenge_open_json(challenge))

    async def admin_accept(request: web.Request) -> web.StreamResponse:
        """POST /_sandbox/challenges/{id}/accept: both players joined; the game starts."""
        try:
            game = accept_challenge(state_of(request), request.match_info["id"])
        except KeyError:
            return error(404, "no such challenge")
        except ChallengeError as e:
            return error(400, str(e))
        return web.json_response({"id": game.id, "status": game.status})

    async def admin_join(request: web.Request) -> web.StreamResponse:
        """POST /_sandbox/challenges/{id}/join ``{"user": NAME}``: one player's click."""
        data = await request.json()
        user = data.get("user") if isinstance(data, dict) else None
        if not isinstance(user, str) or not user:
            return error(400, "user is required")
        try:
            game = join_challenge(state_of(request), request.match_info["id"], user)
        except KeyError:
            return error(404, "no such challenge")
        except ChallengeError as e:
            return error(400, str(e))
        if game is None:
            return web.json_response({"id": request.match_info["id"], "status": "waiting"})
        return web.json_response({"id": game.id, "status": game.status})

    return [
        web.post(
            "/api/challenge/open", authed(required=False, scope="challenge:write")(challenge_open)
        ),
        web.post("/_sandbox/challenges/{id}/accept", admin_accept),
        web.post("/_sandbox/challenges/{id}/join", admin_join),
    ]
