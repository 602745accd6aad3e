"""``acwc db backup PATH`` and ``acwc db restore PATH`` (:mod:`storage.backup`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.cli.base import Cli, CliError, command, database, missing_sqlite_file
from storage.backup import BackupError, BackupSummary, backup, restore
from storage.run_lock import FileLock, RunLockHeld, sqlite_path


def register(db: Any) -> None:
    """Add the two commands to the ``acwc db`` group."""
    p = command(db, "backup", db_backup, "write every table to a new file (while acwc run runs)")
    p.add_argument("path", type=Path, metavar="PATH", help="the backup file to write")
    p.add_argument(
        "--with-sessions",
        action="store_true",
        help="also the web's login sessions (left out by default: they let a reader log in)",
    )
    p = command(db, "restore", db_restore, "load a backup into an empty database")
    p.add_argument("path", type=Path, metavar="PATH", help="a file `acwc db backup` wrote")


def _said(summary: BackupSummary, verb: str, path: Path) -> str:
    return f"{verb} {summary.total} rows of {len(summary.rows)} tables ({summary.revision}) {path}"


async def db_backup(args: argparse.Namespace, cli: Cli) -> int:
    async with database(cli.config, check=False) as db:
        try:
            summary = await backup(db, args.path, now=cli.clock.now(), sessions=args.with_sessions)
        except (BackupError, OSError) as e:
            raise CliError(f"backup: {e}") from None
    print(_said(summary, "wrote", args.path))
    return 0


async def db_restore(args: argparse.Namespace, cli: Cli) -> int:
    url = cli.config.service.database_url
    lock: FileLock | None = None
    file = sqlite_path(url)
    if file is not None:  # never under a running service's feet
        lock = FileLock(file)
        try:
            lock.try_acquire(now=cli.clock.now())
        except RunLockHeld as e:
            raise CliError(f"restore: {e}: stop it first") from None
    made = missing_sqlite_file(url)  # a file the restore creates goes again if it fails
    try:
        async with database(cli.config, check=False, create=True) as db:
            try:
                summary = await restore(db, args.path)
            except BackupError as e:
                raise CliError(f"restore: {e}") from None
    except BaseException:
        if made is not None:
            made.unlink(missing_ok=True)
        raise
    finally:
        if lock is not None:
            await lock.release()
    print(_said(summary, "restored", args.path))
    return 0
