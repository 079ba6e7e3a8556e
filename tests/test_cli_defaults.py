"""Command-line defaults are the library's: a default typed again in a command would drift.

``coordqa eval``'s are checked in ``test_eval_config.py``.
"""

from __future__ import annotations

import inspect
from dataclasses import fields

from coordqa.cli.leaderboard import serve_command, worker_command
from coordqa.leaderboard.settings import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_TRIALS,
    BoardRunSettings,
    SubmitterLimits,
    WorkerConfig,
)


def _defaults(command: object) -> dict[str, object]:
    return {
        name: parameter.default
        for name, parameter in inspect.signature(command).parameters.items()  # type: ignore[arg-type]
    }


def test_serve_offers_the_boards_settings_defaults() -> None:
    offered = _defaults(serve_command)
    limits, jobs = SubmitterLimits(), BoardRunSettings()
    assert offered["rate_limit"] == limits.per_hour and offered["quota"] == limits.quota
    assert offered["max_trials"] == DEFAULT_MAX_TRIALS
    assert offered["max_body_mb"] * 1024 * 1024 == DEFAULT_MAX_BODY_BYTES  # type: ignore[operator]
    job_options = {f.name for f in fields(BoardRunSettings)} - {"hosted", "allow_private_endpoints"}
    assert len(job_options) == 6  # max_disk_mb joined them (issue 35)
    for name in job_options:
        assert offered[f"job_{name}"] == getattr(jobs, name), name


def test_worker_offers_the_worker_config_default() -> None:
    poll = next(f.default for f in fields(WorkerConfig) if f.name == "poll_s")
    assert _defaults(worker_command)["poll_s"] == poll == 5.0


def test_agentic_grid_options_left_out_keep_the_grid_files_runtime() -> None:
    """'Options given here override the grid's': a left-out --backend kept 'local' over ray."""
    from coordqa.cli._call_options import CallOptions
    from coordqa.cli.agentic import ExecutionOptions, _runtime

    grid = {"runtime": {"backend": "ray", "parallel_episodes": 2, "timeout_s": 30.0}}
    kept = _runtime(grid, ExecutionOptions(), CallOptions())
    assert kept == {"backend": "ray", "parallel_episodes": 2, "timeout_s": 30.0}
    given = _runtime(grid, ExecutionOptions(backend="local"), CallOptions(concurrency=4, timeout=5))
    assert given == {"backend": "local", "parallel_episodes": 2, "concurrency": 4, "timeout_s": 5}
