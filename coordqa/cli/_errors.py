"""How the CLI reports errors: a coordqa error is one red line and exit code 2, not a traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from coordqa.errors import CoordqaError

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT)."""


def run_app(app: Callable[..., Any]) -> None:
    """Run ``app`` (a Typer app or its click command); report a :class:`CoordqaError` plainly.

    The message is one line on stderr and the exit status is 2.
    """
    try:
        app()
    except CoordqaError as error:
        message = Text.assemble(("error: ", "bold red"), str(error))
        Console(stderr=True, soft_wrap=True).print(message, highlight=False)
        sys.exit(2)
