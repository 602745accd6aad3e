"""Bulk pairing (issue 25): the sandbox's ``POST /api/bulk-pairing`` as lila has it
(``app/controllers/BulkPairing.scala``, ``modules/challenge/src/main/ChallengeBulkSetup.scala``,
``modules/challenge/src/main/ChallengeBulk.scala``), and the service that makes a match's games
that way when both players allowed it, over HTTP."""

from __future__ import annotations

import datetime as dt
from typing import Any

import aiohttp
from lichess_helpers import START, until
from test_games_on_lichess import ask_challenge, stored_challenges
from test_service_intake import published_match, service, stored_soon

from bot.app import Service
from bot.runtime.clock import FakeClock
from bot.sandbox import make_game
from bot.sandbox.bulk import bulks_of, pair_due
from bot.sandbox.state import SandboxState
from bot.service.weekly.log import games_started
from rules.core.model import GameStatus, normalise_username
from storage.db import Database
from storage.models import GameRow
from storage.models_tokens import BulkGameRow


async def _bulk(url: str, bot: str, players: str, **form: str) -> tuple[int, dict[str, Any]]:
    data = {"players": players, "clock.limit": "120", "clock.increment": "5", **form}
    data.setdefault("rated", "true")
    data.setdefault("variant", "antichess")
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{url}/api/bulk-pairing", data=data, headers={"Authorization": f"Bearer {bot}"}
        ) as answer,
    ):
        return answer.status, await answer.json()


async def test_one_bad_token_refuses_the_whole_bulk_as_lila_does(
    state: SandboxState, sandbox_url: str, bot_token: str
) -> None:
    """ChallengeBulkSetup.scala: each token needs challenge:write; BulkPairing.scala answers
    400 {"tokens": {token: error}} and schedules nothing."""
    alice = state.add_token("Alice", scopes=["challenge:write"])
    bob = state.add_token("Bob", scopes=["msg:write"])
    status, body = await _bulk(sandbox_url, bot_token, f"{alice}:{bob},{alice}:lip_nobody")
    assert status == 400
    assert body == {"tokens": {bob: "Missing scope", "lip_nobody": "No such token"}}
    assert bulks_of(state) == {}
    # the bot's own token needs challenge:bulk (BulkPairing.scala: ScopedBody(_.Challenge.Bulk))
    weak = state.add_token("acwc-bot", scopes=["challenge:write"])
    status, _ = await _bulk(sandbox_url, weak, f"{alice}:{alice}")
    assert status == 403
    # a player twice in one real-time bulk (ChallengeBulkSetup.scala: DuplicateUsers)
    carol = state.add_token("Carol", scopes=["challenge:write"])
    status, body = await _bulk(sandbox_url, bot_token, f"{alice}:{carol},{carol}:{alice}")
    assert (status, body) == (400, {"duplicateUsers": ["alice", "carol"]})


async def test_the_games_come_at_pair_at_with_the_ids_given_at_once_and_source_api(
    state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """ChallengeBulk.scala: games made at pairAt, White the first token's user, Source.Api;
    ChallengeBulkSetup.scala: the ids are in the answer."""
    alice = state.add_token("Alice", scopes=["challenge:write"])
    bob = state.add_token("Bob", scopes=["challenge:write"])
    pair_at = START + dt.timedelta(hours=2)
    status, body = await _bulk(
        sandbox_url, bot_token, f"{bob}:{alice}", pairAt=str(int(pair_at.timestamp() * 1000))
    )
    assert status == 200, body
    [game] = body["games"]
    assert (game["white"], game["black"]) == ("bob", "alice")
    assert body["pairedAt"] is None
    assert pair_due(state) == []  # not yet
    assert game["id"] not in state.games
    clock.advance(dt.timedelta(hours=2))
    [made] = pair_due(state)
    assert (made.id, made.source, made.status) == (game["id"], "api", "started")
    assert (made.players.white.user.id, made.players.black.user.id) == ("bob", "alice")
    assert (made.rated, made.variant) == (True, "antichess")


async def _allow(db: Database, svc: Service, state: SandboxState, *names: str) -> None:
    """``names`` let the bot start their games, each with a token of their own."""
    tokens = svc.services.player_tokens
    assert tokens is not None
    async with db.uow() as uow:
        for name in names:
            value = state.add_token(name, scopes=["challenge:write"])
            await tokens.allow(uow, normalise_username(name), value, ["challenge:write"], now=START)
        await uow.commit()


async def test_both_players_allowed_the_game_is_made_at_the_agreed_time_and_counted(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    agreed = clock.now() + dt.timedelta(hours=2)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await _allow(db, svc, state, "Alice", "Bob")
        await ask_challenge(svc, db, match_id, agreed=agreed)
        [row] = await stored_challenges(db, match_id, 1)
        assert state.challenges == {}  # no open challenge: Lichess makes the game itself
        [bulk] = bulks_of(state).values()
        assert bulk.pair_at == agreed
        assert [g[0] for g in bulk.games] == [row.id]
        assert row.url == f"{sandbox_url}/{row.id}"
        # someone else's api game between the two is no match game
        stray = state.add_game(
            make_game("Alice", "Bob", id="strayapi", created_at=clock.now(), source="api")
        )
        state.start_game(stray.id)
        state.finish_game(stray.id, status="variantEnd", winner="white")
        await stored_soon(db, match_id, {"strayapi"}, counted=False)
        clock.advance(dt.timedelta(hours=2))
        [game] = pair_due(state)
        state.finish_game(game.id, status="variantEnd", winner="black")
        await stored_soon(db, match_id, {game.id}, counted=True)
    async with db.uow() as uow:
        refused = {g.id: g.refusal for g in await uow.games.for_match(match_id, counted_only=False)}
        actions = [a.action for a in await uow.audit.list()]
    assert refused == {"strayapi": "wrong_source", game.id: None}
    assert "bulk.created" in actions


async def test_a_player_who_did_not_allow_it_keeps_the_open_challenge(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await _allow(db, svc, state, "Alice")
        await ask_challenge(svc, db, match_id, agreed=clock.now() + dt.timedelta(hours=2))
        await until(lambda: len(state.challenges) == 1)
    assert bulks_of(state) == {}


async def test_a_token_lichess_refuses_is_forgotten_and_the_open_challenge_made(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await _allow(db, svc, state, "Alice", "Bob")
        for value in [v for v, t in state.tokens.items() if t.user == "bob"]:
            del state.tokens[value]  # Bob revoked it on Lichess
        await ask_challenge(svc, db, match_id, agreed=clock.now() + dt.timedelta(hours=2))
        await until(lambda: len(state.challenges) == 1)
        await stored_challenges(db, match_id, 1)  # the answer's firing, which forgets the token
    assert bulks_of(state) == {}
    async with db.uow() as uow:
        repo = uow.tokens
        assert await repo.get("bob") is None
        assert await repo.get("alice") is not None
        withdrawn = [a for a in await uow.audit.list(player="bob") if a.action == "games.withdrawn"]
    assert withdrawn[0].actor == "bot"
    assert "Lichess refused the token" in withdrawn[0].details["why"]
    assert not any(v in str(withdrawn[0].details) for v in state.tokens)  # no token written


async def test_a_new_time_cancels_the_pending_bulk(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await _allow(db, svc, state, "Alice", "Bob")
        await ask_challenge(svc, db, match_id, agreed=clock.now() + dt.timedelta(hours=2))
        await stored_challenges(db, match_id, 1)
        clock.advance(dt.timedelta(minutes=10))  # the players agree again, later
        await ask_challenge(svc, db, match_id, agreed=START + dt.timedelta(hours=5))
        await stored_challenges(db, match_id, 2)
    [bulk] = bulks_of(state).values()  # the first was cancelled on Lichess
    assert bulk.pair_at == START + dt.timedelta(hours=5)


async def test_an_unplayed_bulk_game_is_no_evidence_that_the_players_came(db: Database) -> None:
    """Rules 6.3: Lichess makes a bulk game "started" at its time whether or not the players
    came, so the no-show checks count it only once a move was made."""
    match_id = await published_match(db)
    created = START + dt.timedelta(hours=2)
    async with db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        for game_id in ("bulkgame", "friendly"):
            uow.session.add(
                GameRow(
                    id=game_id,
                    match_id=match_id,
                    white="alice",
                    black="bob",
                    status=GameStatus.STARTED,
                    variant="antichess",
                    rated=True,
                    clock_limit=120,
                    clock_increment=5,
                    created_at=created,
                    last_move_at=created,
                    recorded_at=created,
                )
            )
        await uow.tokens.add_bulk_game(
            BulkGameRow(
                game_id="bulkgame",
                bulk_id="b1",
                white="alice",
                black="bob",
                pair_at=created,
                created_at=START,
                cancelled_at=None,
            )
        )
        assert await games_started(uow, row, START) == 1  # the challenge's game, not the bulk's
        game = await uow.session.get(GameRow, "bulkgame")
        assert game is not None
        game.last_move_at = created + dt.timedelta(seconds=20)  # a move: they came
        assert await games_started(uow, row, START) == 2
