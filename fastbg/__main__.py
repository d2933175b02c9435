"""``python -m fastbg``: the ``fastbg`` command line."""
import sys

from .cli import main

sys.exit(main())
