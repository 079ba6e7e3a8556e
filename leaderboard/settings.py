"""What a board runs with, and the defaults: one home for them.

The submission limits, the board-run jobs' budgets and the worker's settings, in a module that
imports only the standard library and :mod:`coordqa.errors`, so that ``coordqa leaderboard``'s
options take their defaults from here without the ``leaderboard`` extra (FastAPI, SQLAlchemy)
being imported, or even installed, for ``--help``.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

from coordqa.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_DISK_MB",
    "DEFAULT_MAX_TRIALS",
    "DEFAULT_POLL_S",
    "STOPPED_IDLE",
    "BoardRunSettings",
    "SubmitterLimits",
    "WorkerConfig",
    "process_name",
]

STOPPED_IDLE = "stopped: no job was running"
"""What a worker stopped by Ctrl-C (or SIGTERM) with no job says: while it waits for one, or
while it starts (its imports and the database's opening take seconds)."""

DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024
"""Largest accepted submission body (a full v1 run is well under 1 MB)."""

DEFAULT_POLL_S = 5.0
"""Seconds a worker waits between looks at an empty queue (``worker --poll-s``)."""

DEFAULT_MAX_DISK_MB = 200.0
"""Megabytes a board job's folder may hold (``serve --job-max-disk-mb``): a QA job's 954 calls
store about 2 MB with replies of a few hundred tokens, so 200 MB leaves room for long replies
and stops an endpoint that answers every call with megabytes."""

DEFAULT_MAX_TRIALS = 10
"""Most trials per question a QA submission may hold (``serve --max-trials``): enough for a
trial SE, and it bounds what one submission costs to score, store and show."""


@dataclass(frozen=True)
class SubmitterLimits:
    """Per-token limits; None turns a limit off."""

    per_hour: int | None = 30
    """Submission attempts per token in any hour."""
    quota: int | None = 500
    """Visible entries stored per token (hidden ones do not count)."""


@dataclass(frozen=True)
class BoardRunSettings:
    """What the board's jobs run with (``coordqa leaderboard serve --job-...``)."""

    trials: int = 3
    """Trials per question, on the public release and on the private split."""
    private_per_game: int = 10
    """Fresh scenarios per game in a job's private split (3 questions each)."""
    max_calls: int = 5_000
    """Model calls a job may send, over all its sessions."""
    max_tokens: int = 5_000_000
    """Tokens (prompt and completion) a job may spend."""
    max_seconds: float = 6 * 3600.0
    """Seconds of evaluation a job may take, over all its sessions."""
    max_disk_mb: float = DEFAULT_MAX_DISK_MB
    """Megabytes the job's folder may hold (its runs and private splits) on the worker."""
    hosted: tuple[str, ...] = ("random",)
    """Models the board runs without an ``api_base`` (it holds their keys): names or glob
    patterns such as ``openai/gpt-4o*``. The built-in offline ``random`` needs no key."""
    allow_private_endpoints: bool = False
    """Whether an ``api_base`` may point at loopback or private addresses (a board on a laptop,
    tests); off on a public board, so a registration cannot make the worker call its own
    network."""

    def __post_init__(self) -> None:
        for name in ("trials", "private_per_game", "max_calls", "max_tokens"):
            if getattr(self, name) < 1:
                flag = "--job-" + name.replace("_", "-")
                raise ConfigError(f"{flag} must be at least 1, got {getattr(self, name)}")
        for name in ("max_seconds", "max_disk_mb"):
            if getattr(self, name) <= 0:
                flag = "--job-" + name.replace("_", "-")
                raise ConfigError(f"{flag} must be positive, got {getattr(self, name):g}")


def process_name() -> str:
    """This process as the job list names who claimed a job: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class WorkerConfig:
    """Where and how a worker runs jobs."""

    work_dir: Path
    """Each job's runs live in ``job-<id>/`` here (kept: a resumed job continues them)."""
    name: str = field(default_factory=process_name)
    """Who claimed a job (shown in the job list)."""
    poll_s: float = DEFAULT_POLL_S
    """Seconds between looks at the queue when it is empty."""
