"""The sandbox: a fake Lichess shaped after the official API spec, and simulated players.

``SandboxState`` is the data, in the sandbox's own types written from the spec
(:mod:`bot.sandbox.schemas`, encoded by :mod:`bot.sandbox.encode`); ``make_app(state)`` is the
aiohttp app serving it at the root; ``python -m bot.sandbox --port 8765`` runs it alone.
``make_game`` builds a game from plain arguments. The package imports nothing from the service
(``rules``, ``bot.lichess`` or any other part of ``bot``): it is an independent fake, so it
cannot share a mistake with the client it tests.
"""

from bot.sandbox.app import make_app, run_sandbox
from bot.sandbox.oauth import pkce_challenge
from bot.sandbox.schemas import make_game
from bot.sandbox.state import Knobs, SandboxState

__all__ = ["Knobs", "SandboxState", "make_app", "make_game", "pkce_challenge", "run_sandbox"]
