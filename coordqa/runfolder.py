"""What makes a folder a run folder or an eval set's, known below the store: any layer can tell.

A command that writes one refuses the other's folder (:func:`holds_set`, :func:`holds_run`).
The store (:mod:`coordqa.store`) finds runs by this test and refuses to adopt records without a
manifest by it; the output-path checks (:mod:`coordqa.outputs`), which the store itself uses and
so cannot import it, name a run folder given as a report's or an export's output by it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from coordqa.words import counted

MANIFEST = "manifest.json"
"""The manifest's file name in a run directory."""
SET_MANIFEST = "eval-set.json"
"""The manifest of an eval set's folder (:mod:`coordqa.evalset`), beside its members' runs."""
QUESTIONS = "questions"
"""Stream of the questions of a QA run (:class:`coordqa.records.Question`)."""

STREAM_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""The stem of a stream file a store may write (``calls`` of ``calls.jsonl``)."""


def run_records(root: Path, without: Sequence[str] = ()) -> list[str]:
    """The stream files in ``root`` with their record counts: ``calls.jsonl (594 records)``.

    A stream is any ``<name>.jsonl`` a store could have written
    (:meth:`~coordqa.store.RunStore.stream_path`), but the streams named in ``without``; its
    records are counted as complete lines, read in blocks.
    """
    held = []
    for file in sorted(root.glob("*.jsonl")) if root.is_dir() else ():
        if not file.is_file() or not STREAM_NAME.match(file.stem) or file.stem in without:
            continue
        lines = 0
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                lines += block.count(b"\n")
        held.append(f"{file.name} ({lines} record{'s' * (lines != 1)})")
    return held


def holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run, readable or not: a manifest, or run records without one.

    Records alone count unless they are only a list of questions (a QA run's inputs, or a
    dataset's ``questions.jsonl``, as a board job keeps its private questions): that holds no
    model's answers, so it is no run.
    """
    manifest = folder / MANIFEST
    held = manifest.is_file() or manifest.is_symlink()  # a dangling link is a broken manifest
    return held or bool(run_records(folder, without=(QUESTIONS,)))


def is_run_file(path: Path) -> bool:
    """Whether ``path`` is a file of the run folder holding it: its manifest, or a stream.

    Such a file is never a saved leaderboard bundle, which ``coordqa submit`` also takes as a
    file: it is answered as any file given where a run folder is expected.
    """
    own = path.name == MANIFEST or (path.suffix == ".jsonl" and bool(STREAM_NAME.match(path.stem)))
    return own and holds_run(path.parent)


def holds_set(folder: str | Path) -> bool:
    """Whether ``folder`` is an eval set's: it holds the set's manifest."""
    return (Path(folder) / SET_MANIFEST).is_file()


def folder_words(folder: Path) -> str | None:
    """What ``folder`` is if it is a run's or a set's (``a run directory``); None if neither.

    The words are ``a run directory`` and ``an eval-set folder``: a command wanting another
    kind of folder (a dataset) names it so, not by the files it lacks.
    """
    if holds_set(folder):
        return "an eval-set folder"
    return "a run directory" if holds_run(folder) else None


def resume_set_words(folder: str | Path) -> str:
    """How the eval set at ``folder`` is resumed or extended, for a command given its folder.

    A set is resumed by its spec (or ``--model`` options) with the folder as ``--out``, never
    by its folder alone: the one wording of every refusal that meets a set's folder where
    something else is wanted (a run's ``--out``, the spec ``eval-set`` reads).
    """
    return (
        f"coordqa eval-set SPEC.yaml --out {folder} resumes or extends the set, given the spec "
        "(or the --model options) it was run with"
    )


def runs_held(folder: Path, entries: Sequence[str]) -> str:
    """``2 runs and 1 eval set``: the run and set folders among ``entries`` of ``folder``.

    '' when none. A link is not followed: only folders themselves count. Said where a folder
    of runs is given for something else (an output folder, a dataset).
    """
    folders = [
        folder / e for e in entries if (folder / e).is_dir() and not (folder / e).is_symlink()
    ]
    sets = sum(holds_set(sub) for sub in folders)
    runs = sum(holds_run(sub) and not holds_set(sub) for sub in folders)
    held = [counted(runs, "run")] * bool(runs) + [counted(sets, "eval set")] * bool(sets)
    return " and ".join(held)


def held_words(folder: Path) -> str:
    """What a command resuming ``folder`` finds there, for a refusal: ``an eval set``, ``a run``.

    A set's folder is refused in the set's own words (``holds an eval set with 3 trials``), not
    as a run it is not: the set's runs are its members, in folders of their own.
    """
    return "an eval set" if holds_set(folder) else "a run"
