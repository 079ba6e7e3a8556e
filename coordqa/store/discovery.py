"""Finding run directories: under a folder, or among paths that name runs and folders of runs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coordqa.errors import StoreError
from coordqa.runfolder import holds_run
from coordqa.store.directory import UnreadableRunError, check_run_path, open_run
from coordqa.store.manifest import kind_words, reported_by


@dataclass
class RunSurvey:
    """What a folder holds: the runs that open, and the run folders that do not."""

    runs: list[Path] = field(default_factory=list)
    """Run directories whose manifest opens, sorted by path."""
    unreadable: list[UnreadableRunError] = field(default_factory=list)
    """Folders that hold a run coordqa cannot read (a missing, corrupt or newer manifest),
    each with what is wrong and what to do, sorted by path."""


def no_runs_under(
    folder: str | os.PathLike[str], why: str = "no folder there holds a manifest.json"
) -> StoreError:
    """The error of a folder given where runs were expected that holds none.

    One wording for every command that reads runs (``runs list``, ``report``, ``view``), so a
    folder given is never answered as though nothing had been given; ``why`` says what the
    folder holds instead.
    """
    return StoreError(f"no runs under {Path(folder)}: {why}")


def survey_runs(root: str | os.PathLike[str]) -> RunSurvey:
    """Every run under ``root``, and every folder there that holds a run it cannot read.

    A listing shows the runs that open and marks the others, so one damaged run does not hide
    the rest. A folder holding run records but no manifest counts as an unreadable run, unless
    its only records are a list of questions (:func:`~coordqa.runfolder.holds_run`). Runs are
    not searched for inside runs.

    Raises:
        StoreError: ``root`` is not a folder (:func:`~coordqa.store.check_run_path`).
    """
    base = check_run_path(root, "the folder that holds your runs")
    survey = RunSurvey()
    for folder, subfolders, _ in os.walk(base):
        path = Path(folder)
        if not holds_run(path):
            subfolders.sort()
            continue
        subfolders.clear()
        try:
            open_run(path)
        except UnreadableRunError as exc:
            survey.unreadable.append(exc)
            continue
        survey.runs.append(path)
    survey.runs.sort()
    survey.unreadable.sort(key=lambda problem: problem.path)
    return survey


@dataclass
class FoundRuns:
    """The runs some paths name, and what their folders held that was left out."""

    runs: list[Path] = field(default_factory=list)
    """The run directories named, and those of the kinds asked for found in folders."""
    unreadable: list[UnreadableRunError] = field(default_factory=list)
    """Run folders found in folders whose manifest or records cannot be read, each with its
    cause and fix."""
    other_kinds: dict[str, list[Path]] = field(default_factory=dict)
    """Runs of other kinds found in folders (by kind): readable, but not of this command."""


def discover_runs(
    paths: Sequence[str | os.PathLike[str]],
    kinds: Sequence[str] | None = None,
    *,
    empty_ok: bool = False,
) -> FoundRuns:
    """The runs ``paths`` name: each run directory itself, and the runs found inside a folder.

    So ``coordqa report runs/*`` also reads the runs in a folder of runs among them, and
    ``coordqa view runs/`` shows every run in ``runs/``. A run folder given by name is kept
    whatever its kind and state (the command opening it says what is wrong); runs found inside
    a folder are kept when their kind is one of ``kinds`` (None: any), and the others and the
    unreadable ones (a manifest or records that cannot be read) are returned apart, for the
    command to say it left them out. Each run once, in the order given. ``empty_ok``: a folder
    that holds no run at all yet is kept, with none from it (the live viewer, which shows the
    runs written there later), instead of being refused.

    Raises:
        StoreError: a path is not a folder (:func:`~coordqa.store.check_run_path`), or a
            folder holds no run of ``kinds`` and no unreadable one (unless ``empty_ok`` and it
            holds no run at all).
    """
    found = FoundRuns()
    for given in map(Path, paths):
        check_run_path(given, "run directories or folders of runs")
        if holds_run(given):
            found.runs.append(given)
            continue
        survey = survey_runs(given)
        inside = [(path, open_run(path).manifest.kind) for path in survey.runs]
        wanted = [path for path, kind in inside if kinds is None or kind in kinds]
        damaged = [problem for problem in map(_damaged_records, wanted) if problem]
        kept = [path for path in wanted if path not in {problem.path for problem in damaged}]
        found.unreadable += sorted(survey.unreadable + damaged, key=lambda problem: problem.path)
        if not inside and not survey.unreadable:
            if empty_ok:
                continue
            raise no_runs_under(given)
        if not wanted and not survey.unreadable:
            asked = " or ".join(map(kind_words, kinds or ())) + " " if kinds else ""
            others = sorted({kind for _, kind in inside})
            reports = [hint for hint in map(reported_by, others) if hint]
            said = "; ".join([f"it holds {', '.join(map(kind_words, others))} runs", *reports])
            held = f" ({said})" if others else ""
            raise StoreError(f"{given} is not a run directory and holds no {asked}runs{held}")
        found.runs += kept
        for path, kind in inside:
            if path not in wanted:
                found.other_kinds.setdefault(kind, []).append(path)
    found.runs = list(dict.fromkeys(found.runs))
    return found


def _damaged_records(path: Path) -> UnreadableRunError | None:
    """The run at ``path`` as unreadable when its records cannot be read (None: they can)."""
    try:
        open_run(path).check_records()
    except StoreError as exc:
        return UnreadableRunError.of_records(path, exc)
    return None
