"""Agents and matches: LLM agents, non-LLM partners, and the runners that pit them together.

Public API (loaded lazily, so importing a sub-package such as ``coordqa.agentic.partners`` stays
cheap):

- :func:`run_match` / :func:`play_match`: one episode from an :class:`EpisodeSpec`;
- :func:`run_grid` / :func:`run_grid_async` / :class:`GridConfig`: agents x models x partners
  x games x seeds, resumable, on the local asyncio backend or on Ray; :func:`stored_form`: a
  grid stored by an earlier coordqa (a run's identity, a board's registered grid) in today's
  form;
- :class:`AgenticRun` (:func:`read_agentic_run`) / :func:`verify_episodes`: read a run
  directory back (played episodes, failed ones with their cause) and re-check every episode by
  replaying it (what the leaderboard uses); :func:`load_agentic_run` gives the played episodes;
- :func:`agentic_report`: the paper-shaped tables and figures of one or more runs;
- :func:`get_grid` / :func:`registered_grid` / :func:`registered_grids` / :func:`missing_tasks`:
  the registered, versioned grids (what the leaderboard checks agentic submissions against);
  :func:`unshipped_checkpoint_problem`: whether a run's partners played a checkpoint other than
  the shipped one, which a board's replay would refuse; :func:`shipped_checkpoints_only`: the
  context in which a board plays and replays every BC/HP partner from the shipped checkpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordqa._lazy import lazy_exports

if TYPE_CHECKING:
    from coordqa.agentic.episodes import (
        AgenticEpisode as AgenticEpisode,
        AgenticRun as AgenticRun,
        EpisodeReplayError as EpisodeReplayError,
        EpisodeSpec as EpisodeSpec,
        EpisodeTask as EpisodeTask,
        VerifiedEpisode as VerifiedEpisode,
        load_agentic_run as load_agentic_run,
        read_agentic_run as read_agentic_run,
        verify_episodes as verify_episodes,
    )
    from coordqa.agentic.grid import (
        GridConfig as GridConfig,
        load_grid as load_grid,
        parse_grid as parse_grid,
        stored_form as stored_form,
    )
    from coordqa.agentic.grid_registry import (
        RegisteredGrid as RegisteredGrid,
        get_grid as get_grid,
        missing_tasks as missing_tasks,
        names_a_grid_file as names_a_grid_file,
        registered_grid as registered_grid,
        registered_grids as registered_grids,
    )
    from coordqa.agentic.match import (
        play_match as play_match,
        run_match as run_match,
    )
    from coordqa.agentic.partners.bc import (
        shipped_checkpoints_only as shipped_checkpoints_only,
    )
    from coordqa.agentic.partners.played import (
        unshipped_checkpoint_problem as unshipped_checkpoint_problem,
    )
    from coordqa.agentic.report import (
        agentic_report as agentic_report,
    )
    from coordqa.agentic.runner import (
        GridResult as GridResult,
        run_grid as run_grid,
        run_grid_async as run_grid_async,
    )

__getattr__, __all__ = lazy_exports(__name__, __file__)
