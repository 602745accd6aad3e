"""The TD desk: pending decisions first, then pairings, corrections, relays, forum posts, audit.

Each kind of decision is a small adapter (:mod:`bot.web.desk.sources`): it lists what is
pending, with the evidence, and settles one by calling the same service operation the CLI
calls. The pages are in :mod:`bot.web.desk.pages` and :mod:`bot.web.desk.rounds`.
"""

from __future__ import annotations

from aiohttp import web

from bot.web.desk import checks, conduct_actions, pages, pairing, rounds, tools

__all__ = ["add_routes"]


def add_routes(app: web.Application) -> None:
    app.router.add_get("/desk", pages.desk)
    app.router.add_post("/desk/decide", pages.settle)
    app.router.add_post("/desk/decide/preview", pages.settle_preview)
    app.router.add_post("/desk/result", pages.correct_result)
    app.router.add_post("/desk/result/preview", pages.result_preview)
    app.router.add_post("/desk/relay", pages.relay)
    app.router.add_post("/desk/forum/{draft_id}/posted", pages.mark_posted)
    app.router.add_get("/desk/rounds", rounds.rounds_page)
    app.router.add_post("/desk/rounds/pair", rounds.pair_round)
    app.router.add_get("/desk/pairing", pairing.editor_page)
    app.router.add_post("/desk/pairing/check", pairing.check_page)
    app.router.add_post("/desk/pairing", pairing.keep)
    app.router.add_post("/desk/exit/preview", rounds.exit_page)
    app.router.add_post("/desk/exit", rounds.exit_confirm)
    app.router.add_get("/desk/audit", pages.audit_page)
    app.router.add_get("/desk/offers", tools.offers_page)
    app.router.add_get("/desk/forfeits", tools.forfeits_page)
    app.router.add_post("/desk/forfeits/{forfeit_id}/waive", tools.waive)
    app.router.add_get("/desk/outbox", tools.outbox_page)
    app.router.add_get("/desk/deadlines", tools.deadlines_page)
    app.router.add_post("/desk/sync", tools.sync)
    app.router.add_post("/desk/adjudicate/preview", tools.adjudicate_preview)
    app.router.add_post("/desk/adjudicate", tools.adjudicate)
    app.router.add_get("/desk/registration", checks.check_page)
    app.router.add_post("/desk/registration/check", checks.start_check)
    checks.install(app)
    app.router.add_post("/desk/match/{match_id}/game-forfeit", conduct_actions.game_forfeit)
