"""The ``coordqa`` console script: :func:`coordqa.cli.main`, and a Ctrl-C while it is imported.

Importing the command line (typer, rich) takes about 0.2 s, and a Ctrl-C in that time printed
Python's KeyboardInterrupt traceback. Here it ends the command as a Ctrl-C does elsewhere: the
one line :data:`~coordqa.errors.NOTHING_STARTED` and exit status 130. This module imports
nothing of its own before the command line, so the command costs what it did.
"""

from __future__ import annotations

import sys
from typing import NoReturn


def main() -> NoReturn:
    """Import the command line and run it (:func:`coordqa.cli.main`)."""
    try:
        from coordqa.cli import main as run_command_line
    except KeyboardInterrupt:
        from coordqa.errors import INTERRUPTED_EXIT, NOTHING_STARTED

        print(NOTHING_STARTED, file=sys.stderr)
        raise SystemExit(INTERRUPTED_EXIT) from None
    run_command_line()
