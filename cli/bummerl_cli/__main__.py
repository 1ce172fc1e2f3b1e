"""``python -m bummerl_cli ...``: the ``bummerl`` command line (:func:`bummerl_cli.main.main`)."""

import sys

from .main import main

sys.exit(main())
