"""Whether an agentic run's episodes play a grid's tasks: the one rule, for the board and submit.

The board refuses a bundle whose episodes miss or leave its grid
(:func:`coordqa.leaderboard.verify.verify_agentic`); the bundle builder applies the same rule,
in the same words, before ``coordqa submit`` writes or sends a bundle, wherever it knows the
grid (:func:`coordqa.leaderboard.bundle.build_agentic_bundle`). It depends on no other module
of the leaderboard, so both import it.
"""

from __future__ import annotations

from collections.abc import Iterable

from coordqa.words import agreeing, counted, format_list

__all__ = ["coverage_problem"]


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
