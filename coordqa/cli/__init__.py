"""The ``coordqa`` command line: a thin Typer layer over the library.

Each command module parses options into the library's typed configs, calls one library
function and renders the result with rich. Command modules import heavy libraries (litellm,
datasets, the game engines) inside the commands, so ``coordqa --help`` stays fast.
"""

from __future__ import annotations

import typer

from coordqa.cli import agentic, dataset, games, leaderboard, partners, qa, runs, view

app = typer.Typer(
    name="coordqa",
    help="Measure how well language models coordinate: CoordinationQA and agentic cross-play.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (qa, runs, dataset, games, agentic, partners, leaderboard, view):
    module.register(app)


def main() -> None:
    """Console-script entry point: run the app, turning coordqa errors into clean messages."""
    from coordqa.cli._errors import run_app

    run_app(app)
