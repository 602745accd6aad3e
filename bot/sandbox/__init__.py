"""The sandbox: a fake Lichess shaped after the official API spec, and simulated players.

``SandboxState`` is the data, ``make_app(state)`` the aiohttp app serving it at the root,
``python -m bot.sandbox --port 8765`` runs it alone.
"""

from bot.sandbox.app import make_app, pkce_challenge, run_sandbox
from bot.sandbox.state import Knobs, SandboxState

__all__ = ["Knobs", "SandboxState", "make_app", "pkce_challenge", "run_sandbox"]
