"""The one count a run may raise when resumed, and how a smaller one is refused.

``coordqa eval --trials``, ``eval-set --trials``, ``agentic run/grid --episodes`` and ``play
--episodes`` may each ask an existing run for more: the units it holds are kept and only the
missing ones run. Asking for fewer is refused (the run would hold results it was not asked
for), in the same words everywhere, so it is said here once.
"""

from __future__ import annotations

from pathlib import Path

from coordqa.runfolder import held_words

__all__ = ["fewer_than_stored"]


def fewer_than_stored(
    out: Path,
    had: int,
    asked: int,
    *,
    units: str,
    started: bool,
    nothing: str,
    flag: str = "",
    where: str = "",
    resume: str | None = None,
    restart: str | None = None,
) -> str:
    """Why the run at ``out`` holding ``had`` ``units`` is not resumed with ``asked`` (fewer).

    The folder is named for what it holds (:func:`~coordqa.runfolder.held_words`): an eval
    set's trials are raised and refused as a run's are, but the folder is a set's.

    Args:
        out: the run's (or eval set's) folder.
        had: the count the run was made with.
        asked: the smaller count asked for now.
        units: what ``had`` counts, with anything that qualifies it (``episodes of hanabi``).
        started: whether the run holds any result; if not, nothing is lost by starting over,
            which the message offers.
        nothing: how to say that no result is there yet (``no sample answered yet``).
        flag: the option that sets the count (``--trials``).
        where: where ``flag`` is set, said after its count (`` in grid.yaml``, whose key
            ``episodes:`` is the flag); '' for a command-line option.
        resume: how ``had`` or more are asked for, when the count is not ``flag`` N (a grid
            file's ``seeds: [0, 1, 2] or more seeds from 0 in grid.yaml``).
        restart: how ``asked`` is asked for, in the same case.
    """
    held = held_words(out)
    resume = resume or f"{flag} {had} or more{where}"
    restart = restart or f"{flag} {asked}{where}"
    if not started:
        return (
            f"{out} holds {held} with {had} {units} and {nothing}; to start over with "
            f"{restart}, remove it (rm -r {out}) or use another --out; {resume} resumes it"
        )
    return (
        f"{out} holds {held} with {had} {units}; ask for {resume} to resume it "
        f"(more {units.split()[0]} are added to it), or use another --out"
    )
