"""The eligibility re-check from the desk (rules 2.i, 7.3): every registered player's account and
games read again from Lichess, as the command line's registration check does (the same
``Registration.check_all``), run in the background with its progress on the page, which
reloads itself until it is done.

One check runs at a time per process; its state lives in the web application (a restart forgets
it; what it found is in the audit log, ``registration.check``, and on the players' rows), kept per
season: the page shows the open season's last check, never the one of the season a TD has just
archived by confirming the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from dataclasses import dataclass, field

from aiohttp import web

from bot.errors import OperationError
from bot.service.registration import RegistrationCheck
from bot.web.core import WebContext, context, read_form, redirect_with, render, require_td

__all__ = ["JOBS", "CheckJob", "CheckJobs", "check_page", "install", "start_check"]

log = logging.getLogger(__name__)


@dataclass
class CheckJob:
    started_by: str
    started_at: dt.datetime
    season: int | None = None
    """The season it checks the players of (``tournaments.id``; None: no season yet)."""
    year: int | None = None
    done: int = 0
    total: int | None = None
    checks: list[RegistrationCheck] = field(default_factory=list)
    error: str | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return not self.finished.is_set()

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total


class CheckJobs:
    """The web application's registration checks: each season's last, running or done."""

    def __init__(self) -> None:
        self.current: CheckJob | None = None
        """The last started, of whichever season."""
        self.by_season: dict[int | None, CheckJob] = {}

    def of(self, season: int | None) -> CheckJob | None:
        """The last check of ``season`` (a ``tournaments.id``)."""
        return self.by_season.get(season)

    def start(self, job: CheckJob) -> None:
        self.current = self.by_season[job.season] = job

    async def cancel(self, app: web.Application) -> None:
        """At the application's clean-up: a check still running stops."""
        job = self.current
        if job is not None and job.task is not None and not job.task.done():
            job.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await job.task


JOBS = web.AppKey("desk_registration_checks", CheckJobs)


def install(app: web.Application) -> None:
    jobs = CheckJobs()
    app[JOBS] = jobs
    app.on_cleanup.append(jobs.cancel)


async def _run(job: CheckJob, ctx: WebContext) -> None:
    registration = ctx.services.registration
    try:
        if registration is None:
            raise OperationError("the bot has no Lichess connection to check accounts with")
        checks = await registration.check_all(progress=job.progress)
        async with ctx.db.uow() as uow:  # the Lichess calls over: what they found, stored
            await registration.record_checks(uow, checks, now=job.started_at, actor=job.started_by)
            await uow.commit()
        job.checks = checks
        ctx.changed()
    except OperationError as e:
        job.error = str(e)
    except Exception as e:  # a Lichess failure: said on the page, the details in the log
        log.exception("desk: the registration check failed")
        job.error = f"the check stopped: {e.__class__.__name__}: {e}"
    finally:
        job.finished.set()


async def start_check(request: web.Request) -> web.StreamResponse:
    """``POST /desk/registration/check``: start the re-check in the background (one at a time)."""
    require_td(request)
    who, _ = await read_form(request, {})
    ctx = context(request)
    jobs = request.app[JOBS]
    season = await _open_season(ctx)
    running = jobs.current
    if running is not None and running.running:
        if running.season != season[0]:
            return redirect_with(
                request,
                "/desk/registration",
                f"The check of the {running.year} season is still running: start this "
                "season's when it is done.",
                ok=False,
            )
        return redirect_with(request, "/desk/registration", "A check is already running.")
    job = CheckJob(started_by=who.username, started_at=ctx.now(), season=season[0], year=season[1])
    jobs.start(job)
    job.task = asyncio.get_running_loop().create_task(_run(job, ctx), name="registration-check")
    return redirect_with(request, "/desk/registration", "The check has started.")


async def check_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/registration``: the last check's progress and findings."""
    require_td(request)
    season, year = await _open_season(context(request))
    return await render(
        request,
        "desk_registration.html",
        {"title": "Eligibility re-check", "job": request.app[JOBS].of(season), "year": year},
    )


async def _open_season(ctx: WebContext) -> tuple[int | None, int | None]:
    """The open season's id and year (None: no season yet)."""
    async with ctx.db.reads() as uow:
        season = await uow.tournaments.current()
    return (None, None) if season is None else (season.id, season.year)
