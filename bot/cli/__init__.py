"""The ``acwc`` command line (:mod:`bot.cli.main`): one subcommand module per area."""
