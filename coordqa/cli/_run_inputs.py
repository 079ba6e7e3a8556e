"""The runs a reading command reports, and one line for each thing its folders held beside them.

A user points a report at ``runs/``: a folder that cannot be read there is named with its cause
and fix on stderr, and so is each kind of run this command does not read, and the rest is
reported, as ``runs list`` and ``view`` list a damaged run beside the others. A run folder named
itself is never skipped: its command opens it and stops with what is wrong.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from coordqa.cli._errors import messages, warn
from coordqa.errors import StoreError
from coordqa.store import discover_runs
from coordqa.store.manifest import kind_words

SHOWN_SKIPPED = 3
"""The most paths a note of skipped runs names (then how many more)."""


def runs_to_report(paths: Sequence[str | os.PathLike[str]], kind: str) -> list[Path]:
    """The runs of ``kind`` that ``paths`` name, saying on stderr what their folders held else.

    Raises:
        StoreError: a path is not a folder or holds no run (:func:`~coordqa.store.discover_runs`),
            or every run found was skipped.
    """
    found = discover_runs(paths, (kind,))
    for problem in found.unreadable:
        warn(f"skipped {problem}")
    for other, runs in sorted(found.other_kinds.items()):
        shown = ", ".join(map(str, runs[:SHOWN_SKIPPED]))
        more = f" and {len(runs) - SHOWN_SKIPPED} more" if len(runs) > SHOWN_SKIPPED else ""
        plural = "s" * (len(runs) != 1)
        messages.print(
            f"note: skipped {len(runs)} {kind_words(other)} run{plural} (this command reads "
            f"{kind_words(kind)} runs): {shown}{more}",
            highlight=False,
        )
    if not found.runs:
        named = ", ".join(map(str, paths))
        raise StoreError(f"no readable {kind_words(kind)} runs in {named}: see the lines above")
    return found.runs
