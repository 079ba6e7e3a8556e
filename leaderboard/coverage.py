"""Whether an agentic run's episodes play a grid's tasks: the one rule, for the board and submit.

The board refuses a bundle whose episodes miss or leave its grid
(:func:`coordqa.leaderboard.verify.verify_agentic`); the bundle builder applies the same rule,
in the same words, before ``coordqa submit`` writes or sends a bundle, wherever it knows the
grid (:func:`coordqa.leaderboard.bundle.build_agentic_bundle`). It depends on no other module
of the leaderboard, so both import it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from coordqa.words import agreeing, counted, format_list

__all__ = ["coverage_fix", "coverage_problem"]


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
            f"{len(missing)} of its {counted(len(expected_keys), 'task')} "
            f"{agreeing(len(missing), 'is', 'are')} not played "
            f"({format_list(missing)}): a submission covers every seed, layout and partner of "
            "its grid"
        )
    if extra:
        problems.append(
            f"{counted(len(extra), 'episode')} {agreeing(len(extra), 'plays', 'play')} tasks "
            f"it does not hold ({format_list(extra)}); their "
            "game, layout, seed, partner, seat, options (e.g. horizon) or preset differ from "
            "the grid's"
        )
    if not problems:
        return None
    shown_version = f" version {version}" if version is not None else ""
    return f"grid {grid!r}{shown_version}: " + "; ".join(problems)


def coverage_fix(
    played: Iterable[str],
    expected: Iterable[str],
    play: str,
    agent: str,
    model: str | None,
    *,
    run: str | None = None,
) -> str:
    """What to do about :func:`coverage_problem`'s refusal: the one next step, for both halves.

    ``play``: what ``coordqa agentic grid`` takes to play the grid (its shipped name or its
    file); ``agent`` and ``model``: the run's, so the command plays the same entry; ``run``:
    the run's folder, where the run played this grid (``submit`` knows it, the board does not).
    A run of the grid that misses tasks only (stopped, or played with fewer ``--episodes``) is
    finished in its own folder, which keeps what it played (walkthrough 23: the advice to play
    the whole grid into a new folder played every episode again).

    A run that misses tasks plays the whole grid. One that plays every task and more is a run
    extended past its grid (more seeds or episodes, which ``coordqa agentic grid`` warns of
    before it plays them): the extended run is no longer that grid, so it is either played
    again as the grid, into another folder, or sent as the larger grid the board's admin
    registers under a new name (walkthrough 22, R3: the board's refusal named the tasks but no
    way out).
    """
    command = ["coordqa", "agentic", "grid", play, "--agent", agent]
    command += ["--model", model] if model is not None else []
    played, expected = set(played), set(expected)
    if run is not None and played < expected:
        return (
            "play the missing tasks into the run's folder, which keeps the "
            f"{counted(len(played), 'episode')} it played, then submit it: "
            f"`{shlex.join([*command, '--out', run])}`"
        )
    if expected - played:  # another grid's run, or part of this one's
        return (
            f"play the whole grid and submit that run: `{shlex.join([*command, '--out', 'DIR'])}`"
        )
    return (
        "submit a run of exactly the grid's tasks: play it into a new folder "
        f"(`{shlex.join([*command, '--out', 'NEW_DIR'])}`) and submit that run, or have the "
        "board's admin register the grid file this run played under a new name "
        "(`coordqa leaderboard grid add FILE.yaml --name NEW_NAME`) and submit it with "
        "--grid NEW_NAME"
    )
