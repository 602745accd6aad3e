"""Issue 14 through the sandbox over HTTP: the strict game checks, reads that survive what a real
history and a slow Lichess send, a closed account, the bot's challenges and the broadcasts."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable

import aiohttp
import pytest
from lichess_helpers import START, until
from test_service_intake import games_of, published_match, service, stored_soon

from bot.app import Service
from bot.config import (
    Config,
    ConfigError,
    GamesConfig,
    ServiceConfig,
    TournamentConfig,
    parse_config,
)
from bot.lichess.accounts import LichessAccounts
from bot.lichess.broadcasts import LichessBroadcasts
from bot.lichess.client import LichessClient
from bot.lichess.entries import make_broadcasts
from bot.lichess.errors import LichessTransportError
from bot.notify import Notifier
from bot.runtime.clock import FakeClock
from bot.sandbox import make_game
from bot.sandbox.challenges import accept_challenge
from bot.sandbox.history import make_offboard_game
from bot.sandbox.schemas import GameClock, LightUser
from bot.sandbox.state import SandboxState
from bot.service.broadcasts import Broadcasts
from bot.service.challenges import CHALLENGE_DEADLINE
from bot.service.forum import Forum
from bot.service.registration import Registration
from bot.views.match_room import MatchView, match_view
from rules.core.model import PlayerId
from rules.core.ruleset import DEFAULT_RULESET, StageKind
from rules.core.states import MatchState, RoundState
from storage.db import Database
from storage.models import DeadlineRow, RoundRow
from storage.models_games import ChallengeRow
from tests.factories import stored_match

FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1"


def _from(source: str | None, *, fen: str | None = None) -> Callable[[SandboxState], str]:
    """A game Alice (White) - Bob made as ``source`` says (or from ``fen``), started and won."""

    def play(state: SandboxState) -> str:
        game = state.add_game(
            make_game(
                "Alice",
                "Bob",
                id=f"{(source or 'fen')[:4]}{len(state.games):04d}",
                created_at=state.now(),
                source=source,  # type: ignore[arg-type]
                initial_fen=fen,
            )
        )
        state.start_game(game.id)
        state.finish_game(game.id, status="variantEnd", winner="white")
        return game.id

    return play


def _played(**create: object) -> Callable[[SandboxState], str]:
    def play(state: SandboxState) -> str:
        game = state.start_game(**{"white": "Alice", "black": "Bob", **create})
        state.finish_game(game.id, status="variantEnd", winner="white")
        return game.id

    return play


REFUSALS = [
    ("atomic", _played(variant="atomic"), "wrong_variant", "wrong variant"),
    ("3+2", _played(clock_limit=180, clock_increment=2), "wrong_clock", "wrong clock"),
    ("casual", _played(rated=False), "casual", "casual"),
    ("from a position", _from("friend", fen=FEN), "from_position", "custom position"),
    ("lobby", _from("lobby"), "wrong_source", "source lobby"),
    ("arena", _from("arena"), "wrong_source", "source arena"),
    ("swiss", _from("swiss"), "wrong_source", "source swiss"),
    ("simul", _from("simul"), "wrong_source", "source simul"),
    ("pool", _from("pool"), "wrong_source", "source pool"),
    ("colours", _played(white="Bob", black="Alice"), "wrong_colours", "colours"),
    (
        "after the window",
        _played(created_at=dt.datetime(2021, 10, 19, 12, 0, tzinfo=dt.UTC)),
        "after_window",
        "after the match window",
    ),
]


@pytest.mark.parametrize(
    ("case", "play", "reason", "words"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
async def test_each_refused_game_is_stored_with_its_reason_and_the_tds_alerted(
    db: Database,
    state: SandboxState,
    sandbox_url: str,
    bot_token: str,
    clock: FakeClock,
    case: str,
    play: Callable[[SandboxState], str],
    reason: str,
    words: str,
) -> None:
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock):
        game_id = play(state)
        await stored_soon(db, match_id, {game_id}, counted=False)
    stored = {g[0]: g for g in await games_of(db, match_id)}
    assert stored[game_id][2:] == (False, reason)
    async with db.uow() as uow:
        # no decision to take: a note for the TDs' daily digest and the desk's recent list
        alerts = [a.body for a in await uow.outbox.list(kind="td_note")]
    assert any(game_id in text and words in text for text in alerts), alerts


async def test_a_game_of_the_stream_is_looked_up_for_its_source_and_counted(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """The stream says nothing of a game's source: a challenge game made by hand is looked up
    in the export, which says ``friend``, and counts."""
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock):
        game_id = _played()(state)
        await stored_soon(db, match_id, {game_id}, counted=True)
    assert ("POST", "/api/games/export/_ids") in state.requests


async def test_the_bot_challenges_each_game_and_counts_it_by_its_id(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    agreed = clock.now() + dt.timedelta(hours=2)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await ask_challenge(svc, db, match_id, agreed=agreed)
        await until(lambda: len(state.challenges) == 1)
        first = next(iter(state.challenges.values()))
        assert first.users == ("alice", "bob")  # White first
        assert (first.rated, first.variant, first.clock) == (True, "antichess", GameClock(120, 5))
        assert first.name == "ACWC 2021 Qualification R1: Alice vs Bob, game 1"
        assert first.expires_at == agreed + DEFAULT_RULESET.conduct.no_show_second_alert
        await stored_challenges(db, match_id, 1)
        room = await room_of(db, svc.config, match_id, clock)
        assert (room.next_game, room.next_white) == (1, "Alice")  # as Lichess spells it
        assert (room.challenge_url, room.time_control) == (first.url, "2+5 rated antichess")
        exports_before = state.requests.count(("POST", "/api/games/export/_ids"))
        game = accept_challenge(state, first.id)
        assert (game.id, game.source) == (first.id, "friend")
        state.finish_game(game.id, status="variantEnd", winner="black")
        await stored_soon(db, match_id, {game.id}, counted=True)
        rows = await stored_challenges(db, match_id, 2)  # the next game's, at once
        room = await room_of(db, svc.config, match_id, clock)
    # known by its id: the export is asked for its end time alone (the stream has no lastMoveAt)
    assert state.requests.count(("POST", "/api/games/export/_ids")) == exports_before + 1
    second = next(c for c in state.challenges.values() if c.id != first.id)
    assert second.users == ("bob", "alice")
    assert (room.next_game, room.next_white, room.challenge_url) == (2, "Bob", second.url)
    assert second.name == "ACWC 2021 Qualification R1: Bob vs Alice, game 2"
    assert [(r.game_number, r.white, r.url) for r in rows] == [
        (1, "alice", first.url),
        (2, "bob", second.url),
    ]
    async with db.uow() as uow:
        dms = [m for m in await uow.outbox.list(kind="dm") if first.url in m.body]
    assert sorted(m.recipient for m in dms) == ["Alice", "Bob"]
    assert {m.notice for m in dms} == {"game_link"}  # "Game link" in the room, not "Time agreed"
    assert all("2+5 rated antichess" in m.body and "Alice (White)" in m.body for m in dms)


async def ask_challenge(
    svc: Service,
    db: Database,
    match_id: int,
    *,
    agreed: dt.datetime | None = None,
    armageddon_white: PlayerId | None = None,
) -> None:
    """What an agreement (or the armageddon's decided colours) does: the challenge of game 1
    (or of the armageddon) asked for, and the runner woken."""
    challenges = svc.services.challenges
    assert challenges is not None
    async with db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        now = svc.clock.now()
        if armageddon_white is None:
            row.state, row.agreed_time = MatchState.SCHEDULED, agreed
            await challenges.schedule(uow, row, game=1, now=now)
        else:
            row.state = MatchState.ARMAGEDDON
            await challenges.schedule_armageddon(uow, row, white=armageddon_white, now=now)
        await uow.commit()
    svc.changed(elsewhere=True)


async def room_of(db: Database, config: Config, match_id: int, clock: FakeClock) -> MatchView:
    async with db.uow() as uow:
        return await match_view(uow, config, match_id=match_id, viewer="alice", now=clock.now())


async def stored_challenges(db: Database, match_id: int, count: int) -> list[ChallengeRow]:
    """The match's stored challenges once there are ``count``. Polls the database (the runner
    commits them in its own transaction, which raises no event); fails after 10 real seconds
    (not a timing check)."""
    async with asyncio.timeout(10):
        while True:
            async with db.uow() as uow:
                rows = list(await uow.lichess.challenges(match_id))
            if len(rows) >= count:
                return rows
            await asyncio.sleep(0.01)


async def test_an_export_skips_games_against_the_ai_and_anonymous_players(
    state: SandboxState, client: LichessClient, sandbox_url: str
) -> None:
    alice = LightUser("alice", "Alice")
    state.offboard += [
        make_offboard_game(
            alice, id="aiGame01", created_at=START - dt.timedelta(hours=3), ai_level=3
        ),
        make_offboard_game(
            alice, id="anonGm01", created_at=START - dt.timedelta(hours=2), color="black"
        ),
    ]
    real = state.add_finished_game("Alice", "Bob", created_at=START - dt.timedelta(hours=1))
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"{sandbox_url}/api/games/user/alice", headers={"Accept": "application/x-ndjson"}
        ) as resp,
    ):
        raw = [line for line in (await resp.text()).splitlines() if line]
    assert len(raw) == 3
    assert any('"aiLevel": 3' in line for line in raw)
    games = await client.export_games("alice")
    assert [g.id for g in games] == [real.id]
    assert state.requests.count(("GET", "/api/games/user/alice")) == 2  # one call, no retry


async def test_a_slow_export_with_keepalives_outlasts_the_request_timeout(
    state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """Scaled down: Lichess's 70 s keep-alive interval is 0.5 s here, the old 20 s timeout
    0.25 s; the export is silent 1.5 s before its game, writing ``{}`` keep-alives."""
    real = state.add_finished_game("Alice", "Bob", created_at=START - dt.timedelta(hours=1))
    state.knobs.export_silence_seconds = 1.5
    state.knobs.export_keepalive_seconds = 0.5
    settings = {"base_url": sandbox_url, "token": bot_token, "clock": clock, "max_attempts": 1}
    async with LichessClient(timeout=0.25, stream_timeout=2.0, **settings) as patient:  # type: ignore[arg-type]
        assert [g.id for g in await patient.export_games("alice")] == [real.id]
    async with LichessClient(timeout=0.25, stream_timeout=0.25, **settings) as hasty:  # type: ignore[arg-type]
        with pytest.raises(LichessTransportError):
            await hasty.export_games("alice")


def test_the_stream_timeout_must_be_above_the_keepalive_interval() -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config({"service": {"stream_timeout_seconds": 60}}, {})
    assert refused.value.key == "service.stream_timeout_seconds"
    assert parse_config({}, {}).service.stream_timeout_seconds > 70


async def test_a_closed_account_gets_its_own_registration_reason(
    db: Database, state: SandboxState, client: LichessClient
) -> None:
    state.add_user("Gone", disabled=True)
    registration = Registration(Config(), db, LichessAccounts(client, DEFAULT_RULESET))
    check = await registration.check_player("Gone")
    assert (check.is_eligible, check.reasons) == (False, ["the account is closed (rules 2.ii)"])


async def published(db: Database, *match_ids: int) -> None:
    """The rounds of these matches, published."""
    async with db.uow() as uow:
        for match_id in match_ids:
            row = await uow.matches.get(match_id)
            assert row is not None
            rnd = await uow.session.get(RoundRow, row.round_id)
            assert rnd is not None
            rnd.state = RoundState.PUBLISHED
            rnd.published_at = rnd.published_at or START
            rnd.week_end = rnd.week_end or START + dt.timedelta(days=6)
        await uow.commit()


async def test_broadcast_rounds_follow_the_players_of_each_broadcast_stage_round(
    db: Database, state: SandboxState, client: LichessClient, clock: FakeClock
) -> None:
    qualification = await stored_match(db, "alice", "bob")
    candidates = await stored_match(db, "alice", "bob", stage=StageKind.CANDIDATES)
    second = await stored_match(db, "carol", "dave", stage=StageKind.CANDIDATES)
    async with db.uow() as uow:
        first = await uow.matches.get(candidates)
        other = await uow.matches.get(second)
        assert first is not None
        assert other is not None
        other.round_id = first.round_id  # the same round (week): two boards
        await uow.commit()
    await published(db, qualification, candidates)
    config = Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(lichess_url="http://127.0.0.1:1"),
        games=GamesConfig(broadcast_stages=(StageKind.CANDIDATES,)),
    )
    broadcasts = Broadcasts(
        config, db, clock, Forum(config, Notifier(config)), LichessBroadcasts(client)
    )
    assert await make_broadcasts(db, broadcasts) == 1
    (tour,) = state.broadcasts.values()
    assert tour.name == "ACWC 2021 Candidates"
    (rnd,) = tour.rounds
    assert rnd.sync_users == ("alice", "bob", "carol", "dave")
    assert await make_broadcasts(db, broadcasts) == 0  # made once
    async with db.uow() as uow:
        stored = await uow.lichess.broadcast_round(first.round_id)
        drafts = [d.body for d in await uow.outbox.list(kind="forum_draft")]
    assert stored is not None
    assert (stored.id, stored.url) == (rnd.id, rnd.url)
    assert stored.players == ["alice", "bob", "carol", "dave"]
    assert any(rnd.url in d for d in drafts)


async def test_a_broadcast_lichess_refuses_is_left_for_the_next_sync(
    db: Database, state: SandboxState, sandbox_url: str, clock: FakeClock
) -> None:
    """A token without ``study:write``: Lichess answers 403; nothing is stored, the failure is
    audited, and a later sync with a good token makes the round."""
    await published(db, await stored_match(db, "alice", "bob", stage=StageKind.CANDIDATES))
    config = Config(tournament=TournamentConfig(tds=("ODMWND",)))
    weak = state.add_token("acwc-bot", scopes=("msg:write", "team:lead"))
    async with LichessClient(base_url=sandbox_url, token=weak, clock=clock) as client:
        refused = Broadcasts(
            config, db, clock, Forum(config, Notifier(config)), LichessBroadcasts(client)
        )
        assert await make_broadcasts(db, refused) == 0
    assert state.broadcasts == {}
    async with db.uow() as uow:
        audit = await uow.audit.list()
    assert any(a.action == "broadcast.failed" and "403" in (a.reason or "") for a in audit)
    good = state.add_token("acwc-bot")
    async with LichessClient(base_url=sandbox_url, token=good, clock=clock) as client:
        fixed = Broadcasts(
            config, db, clock, Forum(config, Notifier(config)), LichessBroadcasts(client)
        )
        assert await make_broadcasts(db, fixed) == 1


async def test_a_challenge_lichess_refuses_is_audited_and_asked_again_later(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """Lichess answers 400: nothing is stored, the failure is in the audit log, and the same
    challenge is asked for again five minutes later."""
    match_id = await stored_match(db, "alice", "zed")
    state.knobs.refuse_challenges = "users: Zed cannot play"
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await ask_challenge(svc, db, match_id)
        await until(lambda: ("POST", "/api/challenge/open") in state.requests)
        retry = await open_challenge_deadline(db, match_id)
    assert state.challenges == {}
    assert retry.due_at == clock.now() + dt.timedelta(minutes=5)
    assert retry.payload["attempt"] == 2
    async with db.uow() as uow:
        audit = await uow.audit.list(match_id=match_id)
        assert list(await uow.lichess.challenges(match_id)) == []
    assert any(a.action == "challenge.failed" and "Zed" in (a.reason or "") for a in audit)


async def open_challenge_deadline(db: Database, match_id: int) -> DeadlineRow:
    """The match's unfired challenge deadline once the failed one has fired (polls: the runner
    commits in its own transaction; fails after 10 real seconds, not a timing check)."""
    async with asyncio.timeout(10):
        while True:
            async with db.uow() as uow:
                # the audit first: once it holds the failure, that commit (the retry row with
                # it) is in, whatever SQLite reads next
                fired = await uow.audit.list(match_id=match_id)
                rows = [
                    r
                    for r in await uow.deadlines.open_for_match(match_id)
                    if r.kind == CHALLENGE_DEADLINE
                ]
            if rows and any(a.action == "challenge.failed" for a in fired):
                return rows[0]
            await asyncio.sleep(0.01)


async def test_the_armageddon_game_gets_its_challenge_with_the_decided_white(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """Black's time for both (Lichess has no per-colour clock), no increment, White as the
    procedure decided, not as the match's colour order."""
    match_id = await stored_match(db, "alice", "bob", stage=StageKind.FINAL)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await ask_challenge(svc, db, match_id, armageddon_white=PlayerId("bob"))
        (stored,) = await stored_challenges(db, match_id, 1)
    (made,) = state.challenges.values()
    rules = DEFAULT_RULESET.armageddon
    assert made.users == ("bob", "alice")
    assert made.clock == GameClock(rules.black_seconds, rules.increment_seconds)
    assert made.name == "ACWC 2021 Final R1: Bob vs Alice, armageddon"
    assert (stored.id, stored.armageddon, stored.white) == (made.id, True, "bob")


@pytest.mark.parametrize("failed", [False, True], ids=["cut off by a crash", "refused"])
async def test_an_attempt_a_crash_cut_off_is_made_at_once_when_the_service_leads_again(
    db: Database,
    state: SandboxState,
    sandbox_url: str,
    bot_token: str,
    clock: FakeClock,
    failed: bool,
) -> None:
    """What a SIGKILL while Lichess was asked leaves: the attempt's first firing committed (the
    attempt claimed, its next attempt and its answer's row), the second never. Leading again,
    the service fires the answer's row at once, asking again; an attempt Lichess refused (its
    answer fired, the failure audited) keeps its next attempt five minutes later."""
    match_id = await published_match(db)
    now = clock.now()
    payload = {"week": 1, "game": 1, "white": "alice"}
    async with db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        row.state, row.agreed_time = MatchState.SCHEDULED, now + dt.timedelta(hours=2)
        claimed = DeadlineRow(
            kind=CHALLENGE_DEADLINE, due_at=now, match_id=match_id, subject="week 1 game 1",
            payload={**payload, "attempt": 1}, created_at=now, fired_at=now,
        )  # fmt: skip
        retry = DeadlineRow(
            kind=CHALLENGE_DEADLINE, due_at=now + dt.timedelta(minutes=5), match_id=match_id,
            subject="week 1 game 1", payload={**payload, "attempt": 2}, created_at=now,
        )  # fmt: skip
        await uow.deadlines.add(claimed)
        await uow.deadlines.add(retry)
        await uow.deadlines.add(
            DeadlineRow(
                kind=f"{CHALLENGE_DEADLINE}.answer", due_at=now, match_id=match_id,
                subject="week 1 game 1", payload={"of": claimed.id}, created_at=now,
                fired_at=now if failed else None,
            )
        )  # fmt: skip
        if failed:
            await uow.audit.record(
                at=now, actor="bot", action="challenge.failed", match_id=match_id,
                reason="Lichess answered 503", details={**payload, "attempt": 1},
            )  # fmt: skip
        await uow.commit()
        retry_id = retry.id
    async with service(db, sandbox_url, bot_token, clock):
        if not failed:
            await until(lambda: len(state.challenges) == 1)
            await stored_challenges(db, match_id, 1)
        async with db.uow() as uow:
            stored = await uow.deadlines.get(retry_id)
            assert stored is not None
            fired = [
                a.details["due"]
                for a in await uow.audit.list(match_id=match_id)
                if a.action == "deadline.fired"
            ]
    assert (stored.due_at, stored.fired_at) == (now + dt.timedelta(minutes=5), None)
    if failed:  # nothing asked: the next attempt waits for its time
        assert (state.challenges, stored.cancelled_at, fired) == ({}, None, [])
    else:  # the cut-off attempt asked again at its own time; its next attempt not needed
        assert len(state.challenges) == 1
        assert stored.cancelled_at == now
        assert fired == [now.isoformat()]


async def test_an_aborted_challenge_game_gets_a_new_challenge(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """lila spends a challenge's id when its game is aborted (``ChallengeApi.scala``): the bot
    asks for a new challenge for the same game, with the same colours."""
    match_id = await published_match(db)
    agreed = clock.now() + dt.timedelta(hours=2)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        await ask_challenge(svc, db, match_id, agreed=agreed)
        await until(lambda: len(state.challenges) == 1)
        first = next(iter(state.challenges.values()))
        await stored_challenges(db, match_id, 1)
        clock.advance(dt.timedelta(minutes=3))  # the players join, and one aborts
        game = accept_challenge(state, first.id)
        state.abort_game(game.id)
        rows = await stored_challenges(db, match_id, 2)
    again = next(c for c in state.challenges.values() if c.id != first.id)
    assert again.users == first.users
    assert [(r.game_number, r.white) for r in rows] == [(1, "alice"), (1, "alice")]
