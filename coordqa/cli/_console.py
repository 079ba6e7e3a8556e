"""The consoles every command prints through: one home for how the CLI lays out its output.

Rich folds text at the console's width, 80 columns when output goes to a pipe or a file, so a
URL or path near the end of a long line was cut off onto a line of its own ("already on the
leaderboard: entry 1 (594 replies): " then the URL, blind walkthrough 9): a line that cannot be
copied or grepped whole. Here a line of text is written whole (a terminal, if any, folds it for
the eye) while a table, its title and caption still fit the width.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text


class LineConsole(Console):
    """A console whose lines of text are never folded; tables and panels fit its width."""

    def print(self, *objects: Any, soft_wrap: bool | None = None, **options: Any) -> None:
        """Print as :meth:`Console.print`; text only (str or Text) soft-wraps unless told."""
        if soft_wrap is None:
            soft_wrap = all(isinstance(thing, str | Text) for thing in objects)
        super().print(*objects, soft_wrap=soft_wrap, **options)


def output_console() -> Console:
    """A console for a command's results: stdout."""
    return LineConsole()


def message_console() -> Console:
    """A console for errors, warnings and notes: stderr."""
    return LineConsole(stderr=True)
