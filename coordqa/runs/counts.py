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
    flag: str,
    units: str,
    started: bool,
    nothing: str,
    where: str = "",
) -> str:
    """Why the run at ``out`` holding ``had`` ``units`` is not resumed with ``asked`` (fewer).

    The folder is named for what it holds (:func:`~coordqa.runfolder.held_words`): an eval
    set's trials are raised and refused as a run's are, but the folder is a set's.

    Args:
        out: the run's (or eval set's) folder.
        had: the count the run was made with.
        asked: the smaller count asked for now.
        flag: the option that sets the count (``--trials``).
        units: what ``had`` counts, with anything that qualifies it (``episodes of hanabi``).
        started: whether the run holds any result; if not, nothing is lost by starting over,
            which the message offers.
        nothing: how to say that no result is there yet (``no sample answered yet``).
        where: where ``flag`` is set, said after its count (`` in grid.yaml``, whose key
            ``episodes:`` is the flag); '' for a command-line option.
    """
    held = held_words(out)
    if not started:
        return (
            f"{out} holds {held} with {had} {units} and {nothing}; to start over with "
            f"{flag} {asked}{where}, remove it (rm -r {out}) or use another --out; {flag} {had} "
            f"or more{where} resumes it"
        )
    return (
        f"{out} holds {held} with {had} {units}; ask for {flag} {had} or more{where} to resume it "
        f"(more {units.split()[0]} are added to it), or use another --out"
    )
