"""Whether an agentic run's episodes play a grid's tasks: the one rule, for the board and submit.

The board refuses a bundle whose episodes miss or leave its grid
(:func:`coordqa.leaderboard.verify.verify_agentic`). ``coordqa submit`` applies the same rule,
in the same words, before it writes or sends a bundle, wherever it can know the grid here: a
grid coordqa ships, or a grid file it is given. A name it cannot know (a grid an admin may have
registered only on the board) is left to the board when the bundle is sent (``--to``) and
refused when it is saved (``--out``), since nothing would check it before the upload.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from coordqa.leaderboard.bundle import BundleError, format_list

__all__ = ["LocalGrid", "coverage_problem", "check_covers_locally"]


def coverage_problem(
    played: Iterable[str], grid: str, version: int | None, expected: Iterable[str]
) -> str | None:
    """What keeps ``played`` task keys from covering grid ``grid``'s ``expected`` ones, or None.

    A submission plays each task of its grid, and no other: a subset of seeds would be
    cherry-picked, and a task the grid does not hold (another horizon, partner or seat) ranks
    on other terms than its neighbours.
    """
    expected_keys, played_keys = set(expected), set(played)
    missing = sorted(expected_keys - played_keys)
    extra = sorted(played_keys - expected_keys)
    problems = []
    if missing:
        problems.append(
            f"{len(missing)} of its {len(expected_keys)} tasks are not played "
            f"({format_list(missing)}): a submission covers every seed, layout and partner of "
            "its grid"
        )
    if extra:
        problems.append(
            f"{len(extra)} episodes play tasks it does not hold ({format_list(extra)}); their "
            "game, layout, seed, partner, seat, options (e.g. horizon) or preset differ from "
            "the grid's"
        )
    if not problems:
        return None
    shown_version = f" version {version}" if version is not None else ""
    return f"grid {grid!r}{shown_version}: " + "; ".join(problems)


@dataclass(frozen=True)
class LocalGrid:
    """A grid ``submit`` can read here: its name on a board, version, task keys, how to play it."""

    name: str
    version: int | None
    tasks: frozenset[str]
    play: str
    """What ``coordqa agentic grid`` takes to play it: the shipped name or the file's path."""


def _local_grid(given: str) -> LocalGrid | None:
    """The grid coordqa ships as ``given``, or the grid file at that path; None for neither.

    Raises:
        ConfigError: ``given`` is a file but no valid grid.
    """
    from coordqa.agentic import load_grid, registered_grids

    shipped = registered_grids().get(given)
    if shipped is not None:
        keys = frozenset(task.key for task in shipped.tasks())
        return LocalGrid(shipped.name, shipped.version, keys, shipped.name)
    if not Path(given).is_file():
        return None
    config = load_grid(given)
    keys = frozenset(task.key for task in config.tasks())
    return LocalGrid(config.name, config.version, keys, given)


def check_covers_locally(
    played: Iterable[str],
    given: str,
    *,
    own_grid: str | None,
    agent: str,
    model: str | None,
    sending: bool,
) -> str:
    """The board name of grid ``given`` once ``played`` covers it, as far as it is known here.

    ``own_grid`` is the name of the grid file the run played (its manifest's): a grid coordqa
    does not ship, but a board may have registered that file, so it is not refused.
    ``sending``: the bundle goes to a board now, which knows its own registered grids.

    Raises:
        BundleError: the episodes do not cover a grid known here (the board's words, then the
            command that plays it), or ``given`` is known neither here nor, when saving, as
            the run's own grid (with the closest shipped names).
        ConfigError: ``given`` is a file but no valid grid.
    """
    grid = _local_grid(given)
    if grid is None:
        if sending or given == own_grid:
            return given
        from coordqa.agentic import registered_grids
        from coordqa.registry import did_you_mean

        shipped = sorted(registered_grids())
        raise BundleError(
            f"unknown grid {given!r}: coordqa ships no grid of that name ({', '.join(shipped)}) "
            f"and no grid file is at that path.{did_you_mean(given, shipped)} For a grid a "
            "board registered from a YAML file, give that file (--grid FILE.yaml) so the run "
            "is checked against it, or send the run with --to URL and the board checks it"
        )
    problem = coverage_problem(played, grid.name, grid.version, grid.tasks)
    if problem is not None:
        command = ["coordqa", "agentic", "grid", grid.play, "--agent", agent]
        command += ["--model", model] if model is not None else []
        raise BundleError(
            f"{problem}; play the whole grid and submit that run: "
            f"`{shlex.join([*command, '--out', 'DIR'])}`"
        )
    return grid.name
