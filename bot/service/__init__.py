"""The application services: every change to the championship, one job a module.

The adapters (``bot.lichess``, ``bot.web``, ``bot.cli``) call these; each operation works in the
caller's unit of work and raises :class:`~bot.errors.OperationError` with a sentence
when it cannot. ``bot/app.py`` builds them all (:class:`~bot.service.services.Services`) and
hands each what it needs when it is built.
"""
