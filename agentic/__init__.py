"""Agents and matches: LLM agents, non-LLM partners, and the runners that pit them together.

Public API (loaded lazily, so importing a sub-package such as ``coordqa.agentic.partners`` stays
cheap):

- :func:`run_match` / :func:`play_match`: one episode from an :class:`EpisodeSpec`;
- :func:`run_grid` / :class:`GridConfig`: agents x models x partners x games x seeds, resumable,
  on the local asyncio backend or on Ray;
- :func:`load_agentic_run` / :func:`verify_episodes`: read a run directory back and re-check
  every episode by replaying it (what the leaderboard uses);
- :func:`agentic_report`: the paper-shaped tables and figures of one or more runs;
- :func:`get_grid` / :func:`registered_grids` / :func:`missing_tasks`: the registered, versioned
  grids (what the leaderboard checks agentic submissions against).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_getattr

_EXPORTS = {
    "AgenticEpisode": "coordqa.agentic.episodes",
    "EpisodeSpec": "coordqa.agentic.episodes",
    "EpisodeTask": "coordqa.agentic.episodes",
    "RegisteredGrid": "coordqa.agentic.grid_registry",
    "get_grid": "coordqa.agentic.grid_registry",
    "missing_tasks": "coordqa.agentic.grid_registry",
    "registered_grids": "coordqa.agentic.grid_registry",
    "VerificationError": "coordqa.agentic.episodes",
    "VerifiedEpisode": "coordqa.agentic.episodes",
    "load_agentic_run": "coordqa.agentic.episodes",
    "verify_episodes": "coordqa.agentic.episodes",
    "play_match": "coordqa.agentic.match",
    "GridConfig": "coordqa.agentic.grid",
    "load_grid": "coordqa.agentic.grid",
    "parse_grid": "coordqa.agentic.grid",
    "run_grid": "coordqa.agentic.runner",
    "GridResult": "coordqa.agentic.runner",
    "agentic_report": "coordqa.agentic.report",
    "run_match": "coordqa.agentic.match",
}

__all__ = [
    "AgenticEpisode",
    "EpisodeSpec",
    "EpisodeTask",
    "GridConfig",
    "GridResult",
    "RegisteredGrid",
    "agentic_report",
    "get_grid",
    "missing_tasks",
    "registered_grids",
    "load_grid",
    "parse_grid",
    "run_grid",
    "VerificationError",
    "VerifiedEpisode",
    "load_agentic_run",
    "play_match",
    "run_match",
    "verify_episodes",
]

if TYPE_CHECKING:
    from coordqa.agentic.episodes import (
        AgenticEpisode,
        EpisodeSpec,
        EpisodeTask,
        VerificationError,
        VerifiedEpisode,
        load_agentic_run,
        verify_episodes,
    )
    from coordqa.agentic.grid import GridConfig, load_grid, parse_grid
    from coordqa.agentic.grid_registry import (
        RegisteredGrid,
        get_grid,
        missing_tasks,
        registered_grids,
    )
    from coordqa.agentic.match import play_match, run_match
    from coordqa.agentic.report import agentic_report
    from coordqa.agentic.runner import GridResult, run_grid


__getattr__ = lazy_getattr(__name__, _EXPORTS)
