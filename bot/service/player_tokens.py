"""Players who let the bot start their games: their Lichess tokens, kept encrypted (issue 25).

A player allows it on their account page: Lichess asks them for ``challenge:write`` and the
token comes back to the site, which keeps it only as a Fernet token (``cryptography``'s
authenticated encryption, AES-128-CBC with an HMAC-SHA256: a well-kept library, and a stored
value that is tampered with or read with another key does not decrypt at all) under the key of
``ACWC_TOKEN_KEY``. A copy of the database or a backup holds no usable token without that key.
Withdrawing deletes the row here, and the caller revokes the token on Lichess. A token Lichess
refused (revoked there, say) is forgotten the same way, and the player is told.

A token no longer needed is revoked and forgotten by a deadline of kind :data:`FORGET` (two
firings, an ``Ask``: the token is read in the first, Lichess is asked outside any transaction,
and the row deleted in the second, so a crash in between asks again): planned for one player
when they leave the championship (rules 8, the exit path) or when a TD confirms the removal of
their data, and for every stored token at each stage's change (a sweep: those of players out of
the stage now in play, and every one once the championship is over). A token Lichess could not
revoke (Lichess down) is not dropped: it stays sealed and its revocation is tried again
(:data:`REVOKE_AGAIN`) until Lichess takes it, or until a TD drops it anyway on the desk
(:meth:`PlayerTokens.drop`: deleted here, not revoked, audited :data:`DROPPED` with who and why;
the player's account page then tells them to revoke it on Lichess themselves).

With a sandbox and no key set, each process makes a key of its own: the tokens of a sandbox are
worth nothing after it stops.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterable

from cryptography.fernet import Fernet, InvalidToken

from bot.config import Config
from bot.errors import OperationError
from bot.runtime.deadlines import Ask, Firing, Handler
from rules.core.ruleset import StageKind
from rules.core.states import MatchState, PlayerStatus, StageState
from rules.core.words import N_
from rules.stages.formats import stage_format
from storage.models import DeadlineRow
from storage.models_tokens import PlayerTokenRow
from storage.uow import UnitOfWork

__all__ = [
    "DROPPED",
    "FORGET",
    "GAME_SCOPE",
    "SWEEP",
    "Permission",
    "PlayerTokens",
    "Revoke",
    "TokenVault",
    "Unrevoked",
    "plan_forget",
]

log = logging.getLogger(__name__)

GAME_SCOPE = "challenge:write"
"""What lila's bulk pairing needs of each player's token."""
FORGET = "player_tokens.forget"
"""The deadline that revokes and forgets stored tokens no longer needed (its subject: a player's
id, or :data:`SWEEP`)."""
SWEEP = "*"
"""A :data:`FORGET` deadline's subject for every stored token not needed any more."""

Revoke = Callable[[str], Awaitable[bool]]
"""Revokes a token on Lichess (``DELETE /api/token``); whether Lichess took it (it raises
nothing: a failure is ``False``)."""


REVOKE_AGAIN = dt.timedelta(hours=1)
"""How long after Lichess could not be reached a token's revocation is tried again."""
DROPPED = "games.token_dropped"
"""The audit entry of a token a TD deleted without Lichess revoking it (who, and why)."""
FAILING_SINCE = "failing_since"
"""A :data:`FORGET` retry's payload: when Lichess first could not revoke the token."""


async def plan_forget(
    uow: UnitOfWork,
    *,
    subject: str,
    why: str,
    now: dt.datetime,
    due_at: dt.datetime | None = None,
    failing_since: dt.datetime | None = None,
) -> None:
    """Plan the :data:`FORGET` deadline, due at ``due_at`` (at once by default): ``subject`` a
    player id or :data:`SWEEP`; ``failing_since``: a retry, Lichess not revoking it since."""
    payload = {"why": why}
    if failing_since is not None:
        payload[FAILING_SINCE] = failing_since.isoformat()
    await uow.deadlines.add(
        DeadlineRow(
            kind=FORGET,
            due_at=now if due_at is None else due_at,
            subject=subject,
            payload=payload,
            created_at=now,
        )
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Unrevoked:
    """A stored token no longer needed that Lichess could not revoke: kept, tried again."""

    player_id: str
    why: str
    """Why it is no longer needed (the :data:`FORGET` deadline's: an exit's kind, ``stage``,
    ``removal``, ``withdrawn``)."""
    since: dt.datetime
    """When Lichess first could not revoke it."""
    next_try: dt.datetime


class TokenVault:
    """Seals and opens the players' tokens with one Fernet key."""

    def __init__(self, key: str | bytes) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def for_config(cls, config: Config) -> TokenVault | None:
        """The vault of ``ACWC_TOKEN_KEY``; a fresh key for a sandbox without one; ``None``
        (nothing kept) for a real Lichess without one."""
        key = config.secrets.token_key
        if key:
            return cls(key)
        if config.service.uses_local_lichess:
            return cls(Fernet.generate_key())
        return None

    def seal(self, token: str) -> str:
        return self._fernet.encrypt(token.encode()).decode("ascii")

    def open(self, secret: str) -> str | None:
        """The token, or ``None`` when ``secret`` was not sealed with this key."""
        try:
            return self._fernet.decrypt(secret.encode("ascii")).decode()
        except (InvalidToken, ValueError):
            return None


@dataclasses.dataclass(frozen=True, slots=True)
class Permission:
    """What the account page shows: whether the player allowed it, and since when."""

    offered: bool
    allowed: bool
    since: dt.datetime | None = None
    dropped: dt.datetime | None = None
    """When a TD last dropped the player's token without Lichess revoking it (none given
    since): the player revokes it on Lichess themselves."""


class PlayerTokens:
    """Each player's permission to start their games, with the token that carries it."""

    def __init__(
        self, config: Config, vault: TokenVault | None, revoke: Revoke | None = None
    ) -> None:
        self.config = config
        self.vault = vault
        self.revoke = revoke
        """Revokes a token on Lichess (``None``: no Lichess; the rows are deleted alone)."""

    @property
    def offered(self) -> bool:
        """Whether players may allow it: bulk pairing on, and a key to keep tokens with."""
        return self.config.games.bulk_pairing and self.vault is not None

    async def permission(self, uow: UnitOfWork, player_id: str) -> Permission:
        row = await uow.tokens.get(player_id.lower())
        if not self.offered:
            return Permission(offered=False, allowed=False)
        if row is not None:
            return Permission(True, True, row.created_at)
        last = await uow.audit.list(player=player_id.lower(), actions=(DROPPED, "games.allowed"))
        dropped = last[-1].at if last and last[-1].action == DROPPED else None
        return Permission(True, False, None, dropped)

    async def allow(
        self,
        uow: UnitOfWork,
        player_id: str,
        token: str,
        scopes: Iterable[str],
        *,
        now: dt.datetime,
    ) -> str | None:
        """Keep ``token`` (sealed) as the player's permission; refuses a non-player, a token
        without ``challenge:write``, or when it is not offered. The token it replaces, for the
        caller to revoke on Lichess (``None``: none, or it no longer opens)."""
        if not self.offered or self.vault is None:
            raise OperationError(N_("The bot does not start games for players in this tournament."))
        player = await uow.players.get(player_id.lower())
        if player is None:
            raise OperationError(N_("Only a registered player can let the bot start their games."))
        granted = sorted(set(scopes))
        if GAME_SCOPE not in granted:
            raise OperationError(
                N_("Lichess did not grant the permission to create games; nothing was kept.")
            )
        earlier = await uow.tokens.get(player.id)
        await uow.tokens.put(
            PlayerTokenRow(
                player_id=player.id,
                secret=self.vault.seal(token),
                scopes=" ".join(granted)[:200],
                created_at=now,
            )
        )
        await uow.audit.record(
            at=now, actor=player.username, action="games.allowed", player=player.id
        )
        return None if earlier is None else self.vault.open(earlier.secret)

    async def withdraw(
        self, uow: UnitOfWork, player_id: str, *, now: dt.datetime, actor: str, why: str = ""
    ) -> str | None:
        """Forget the player's token; the token itself, to revoke on Lichess (``None``: there
        was none, or it no longer opens)."""
        repo = uow.tokens
        row = await repo.get(player_id.lower())
        if row is None:
            return None
        token = None if self.vault is None else self.vault.open(row.secret)
        await repo.delete(row.player_id)
        details = {"why": why} if why else None
        await uow.audit.record(
            at=now, actor=actor, action="games.withdrawn", player=row.player_id, details=details
        )
        return token

    async def stored(self, uow: UnitOfWork, player_id: str) -> str | None:
        """The player's stored token, whether or not it is still offered (``None``: none, or it
        no longer opens): what a caller revokes before the player's row goes."""
        row = await uow.tokens.get(player_id.lower())
        return None if row is None or self.vault is None else self.vault.open(row.secret)

    async def tokens(self, uow: UnitOfWork, player_ids: Iterable[str]) -> dict[str, str]:
        """The tokens of those of ``player_ids`` who allowed it (a row that no longer opens,
        sealed with another key, counts as not allowed)."""
        if not self.offered or self.vault is None:
            return {}
        rows = await uow.tokens.get_many(p.lower() for p in player_ids)
        out = {}
        for player_id, row in rows.items():
            token = self.vault.open(row.secret)
            if token is None:
                log.warning("the stored token of %s does not open with this key", player_id)
                continue
            out[player_id] = token
        return out

    def handlers(self) -> dict[str, Handler]:
        return {FORGET: self.on_forget}

    async def on_forget(self, uow: UnitOfWork, firing: Firing) -> Ask[set[str]] | None:
        """The :data:`FORGET` deadline: the tokens it names (one player's, or every one no
        longer needed), revoked on Lichess after this firing commits and then deleted."""
        deadline = firing.deadline
        why = str((deadline.payload or {}).get("why", ""))
        ids = [deadline.subject] if deadline.subject != SWEEP else await self.unneeded(uow)
        rows = await uow.tokens.get_many(ids)
        failing = (deadline.payload or {}).get(FAILING_SINCE)
        since = firing.now if failing is None else dt.datetime.fromisoformat(str(failing))
        # a retry's token is the one that failed: a permission given since is a new one
        secrets = {pid: row.secret for pid, row in rows.items() if row.created_at <= since}
        if not secrets:
            return None
        opened = {pid: self.vault.open(s) if self.vault else None for pid, s in secrets.items()}
        now = firing.now
        revoke = self.revoke
        if revoke is None:
            await self._forgotten(uow, secrets, set(), why=why, now=now)
            return None

        async def ask() -> set[str]:
            return {pid for pid, token in opened.items() if token and await revoke(token)}

        async def answered(uow: UnitOfWork, revoked: set[str]) -> None:
            # a token Lichess could not revoke (down, say) stays, sealed, and is tried again
            failed = {pid for pid, token in opened.items() if token and pid not in revoked}
            for pid in sorted(failed):
                await plan_forget(
                    uow,
                    subject=pid,
                    why=why,
                    now=now,
                    due_at=now + REVOKE_AGAIN,
                    failing_since=since,
                )
            kept = {pid: s for pid, s in secrets.items() if pid not in failed}
            await self._forgotten(uow, kept, revoked, why=why, now=now)

        return Ask(question=ask, answered=answered)

    async def _forgotten(
        self,
        uow: UnitOfWork,
        secrets: dict[str, str],
        revoked: set[str],
        *,
        why: str,
        now: dt.datetime,
    ) -> None:
        """Delete each row still holding the token read (a newer one the player gave since
        stays), audited with whether Lichess revoked it."""
        for pid, secret in sorted(secrets.items()):
            row = await uow.tokens.get(pid)
            if row is None or row.secret != secret:
                continue
            await uow.tokens.delete(pid)
            await uow.audit.record(
                at=now,
                actor="bot",
                action="games.withdrawn",
                player=pid,
                details={"why": why, "revoked_on_lichess": pid in revoked},
            )

    async def unrevoked(self, uow: UnitOfWork) -> list[Unrevoked]:
        """The stored tokens Lichess could not revoke, each tried again by a :data:`FORGET`
        deadline, oldest failure first (what the desk lists for a TD to drop anyway)."""
        found: dict[str, Unrevoked] = {}
        for row in await uow.deadlines.all_open_of_kind(FORGET):
            failing = (row.payload or {}).get(FAILING_SINCE)
            if failing is None or row.subject is None or row.subject in found:
                continue
            found[row.subject] = Unrevoked(
                row.subject,
                str((row.payload or {}).get("why", "")),
                dt.datetime.fromisoformat(str(failing)),
                row.due_at,
            )
        stored = await uow.tokens.get_many(found)
        # a permission given since the failure is a new token: not the one that failed
        kept = [u for u in found.values() if u.player_id in stored]
        return sorted(
            (u for u in kept if stored[u.player_id].created_at <= u.since), key=lambda u: u.since
        )

    async def drop(
        self, uow: UnitOfWork, player_id: str, *, actor: str, reason: str, now: dt.datetime
    ) -> None:
        """Delete the player's stored token without Lichess revoking it (a TD's ruling while
        Lichess cannot be reached): its retries cancelled, audited :data:`DROPPED` with who and
        why. The token stays valid on Lichess until the player revokes it there."""
        pid = player_id.lower()
        if await uow.tokens.get(pid) is None:
            raise OperationError(f"{player_id} has no stored token (revoked meanwhile?)")
        whys = []
        for row in await uow.deadlines.all_open_of_kind(FORGET):
            if row.subject == pid:
                whys.append(str((row.payload or {}).get("why", "")))
                row.cancelled_at = now
        await uow.tokens.delete(pid)
        await uow.audit.record(
            at=now,
            actor=actor,
            action=DROPPED,
            reason=reason,
            player=pid,
            details={"why": whys[0] if whys else "", "revoked_on_lichess": False},
        )

    async def unneeded(self, uow: UnitOfWork) -> list[str]:
        """The players whose stored token no longer serves: out of the championship, not in the
        stage in play (nor in a match of it), or every one once the championship is over."""
        ids = await uow.tokens.player_ids()
        if not ids:
            return []
        tournament = await uow.tournaments.current()
        stage = (
            None
            if tournament is None
            else await uow.tournaments.stage(tournament.id, str(tournament.current_stage))
        )
        players = await uow.players.get_many(ids)
        active = {p for p, row in players.items() if row.status == PlayerStatus.ACTIVE}
        if stage is None or stage.state == StageState.PENDING:
            return [p for p in ids if p not in active]  # registration: every player may play
        if stage.state == StageState.COMPLETE:
            return ids  # the championship is over
        playing = {e.player_id for e in await uow.stages.entrants(stage.id)}
        kinds = [str(k) for k in stage_format(StageKind(stage.kind)).members]  # the third place
        for match in await uow.later_stages.matches_of_stages(kinds):
            if match.state != MatchState.COMPLETE:  # proposed ones too: a round to approve
                playing.update(p for p in (match.white_first, match.black_first) if p)
        return [p for p in ids if p not in active or p not in playing]
