"""The consoles every command prints through: one home for how the CLI writes text.

Rich folds text at the console's width, 80 columns when output goes to a pipe or a file, so a
URL or path near the end of a long line was cut in two ("already on the leaderboard: entry 1
(594 replies): " and the URL on the next line, blind walkthrough 9): it could not be copied,
clicked or grepped. These consoles soft-wrap: each line is written whole and a terminal, if
any, folds it for the eye; tables and panels still fit the width.
"""

from __future__ import annotations

from rich.console import Console


def output_console() -> Console:
    """A console for a command's results: stdout, lines never folded."""
    return Console(soft_wrap=True)


def message_console() -> Console:
    """A console for errors, warnings and notes: stderr, lines never folded."""
    return Console(stderr=True, soft_wrap=True)
