"""Making every player name resolvable from the command line.

The core's player registry only knows the scripted players of ``coordqa.games``; the neural
partners and the LLM agents live in the agentic track, which the core must not import. The CLI
may, so its commands call :func:`register_all_players` before resolving names.
"""

from __future__ import annotations


def register_all_players() -> None:
    """Import the packages that register partners and agents in ``coordqa.games.PLAYERS``."""
    import coordqa.agentic.agents  # noqa: F401
    import coordqa.agentic.partners  # noqa: F401
