"""``python -m bot`` is the ``acwc`` command."""

import sys

from bot.launch import main

sys.exit(main())
