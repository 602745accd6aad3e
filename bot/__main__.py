"""``python -m bot`` is the ``acwc`` command."""

import sys

from bot.cli import main

sys.exit(main())
