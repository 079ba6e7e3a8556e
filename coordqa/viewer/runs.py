"""The runs a viewer shows: each opened once, read again only when its files change.

A page asks the catalog for a run's view; the catalog compares the run directory's file sizes
and modification times with those of the view it holds (one ``stat`` per file) and rebuilds the
view only when they differ, so a run that is still being written shows its new samples on the
next page load, and no request re-reads a run that did not change. Runs written into the folders
given after the viewer started are found when asked for (:meth:`RunCatalog.find_new_runs`), and
a QA run relabelled since (``coordqa eval ... --label NEW``) is shown by its new label.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from coordqa.analysis.labels import run_labels
from coordqa.errors import ConfigError, StoreError
from coordqa.jsonvalues import JSONObject
from coordqa.registry import did_you_mean
from coordqa.runfolder import MANIFEST
from coordqa.store import (
    RunKind,
    RunManifest,
    RunStore,
    UnreadableRunError,
    discover_runs,
    open_run,
)
from coordqa.store.manifest import kind_words, model_names
from coordqa.viewer.agentic import AgenticView
from coordqa.viewer.compare import DatasetComparison, compare_by_question_set
from coordqa.viewer.qa import QAView, Rationales
from coordqa.words import counted, format_list

__all__ = ["RunCatalog", "RunEntry"]

SHOWN_KINDS = ("qa", "agentic")
"""Run kinds the viewer shows."""

SHOWN_WORDS = (
    "the viewer shows QA runs (coordqa eval) and agentic runs (coordqa agentic run / grid)"
)
"""Why a run of another kind is not shown, as the refusal of one and the index's note say it."""

V = TypeVar("V", QAView, AgenticView)

Stamp = tuple[tuple[str, int, int], ...]
"""Name, size and modification time of every file of a run directory."""


@dataclass(frozen=True)
class RunEntry:
    """One run given to the viewer."""

    id: str
    """Its name in URLs and exported file names (from the directory name, made unique)."""
    path: Path
    """The run directory."""
    kind: RunKind
    """``qa`` or ``agentic``."""
    label: str
    """What the run is, for people: its label or model, told apart from the other QA runs'
    (:func:`coordqa.analysis.run_labels`), or the grid's agents (agentic)."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "run"


def _agentic_label(config: JSONObject) -> str:
    """An agentic run, for people: its agents, and their models."""
    agents, models = config.get("agents"), model_names(config)
    named = agents if isinstance(agents, list) and agents else [config.get("agent", "?")]
    shown = ", ".join(str(agent) for agent in named)
    return f"{shown} [{', '.join(models)}]" if models else shown


def _by_path(problems: Sequence[UnreadableRunError]) -> list[UnreadableRunError]:
    """``problems``, one per run folder, sorted by path."""
    return sorted({p.path: p for p in problems}.values(), key=lambda problem: problem.path)


def _stamp(path: Path) -> Stamp:
    with os.scandir(path) as entries:
        return tuple(
            sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in entries if e.is_file())
        )


def _manifest_stamp(stamp: Stamp) -> tuple[int, int] | None:
    """The size and modification time of the manifest among a run directory's ``stamp``."""
    return next(((size, mtime) for name, size, mtime in stamp if name == MANIFEST), None)


def _manifest_stamp_of(path: Path) -> tuple[int, int] | None:
    """The size and modification time of run directory ``path``'s manifest (None: none)."""
    try:
        status = (path / MANIFEST).stat()
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


class RunCatalog:
    """The runs of one viewer, by id, with their views cached per version of their files."""

    LOOK_AGAIN_EVERY_S = 2.0
    """The shortest time between two searches for runs made since the viewer started."""

    def __init__(self, paths: Sequence[str | os.PathLike[str]], *, live: bool = False) -> None:
        """Open every run's manifest: run directories, and the QA and agentic runs in folders.

        ``live``: a viewer that serves, and finds runs written since it started, so a folder
        given that holds no run yet is taken (:meth:`empty_note` says so) rather than refused.

        Raises:
            ConfigError: no run given, or a run of a kind the viewer does not show.
            StoreError: a path is neither a run directory nor a folder holding runs (nor,
                ``live``, an existing folder holding none yet).
        """
        if not paths:
            raise ConfigError(
                "give at least one run directory (written by coordqa eval or agentic)"
            )
        self._given = [Path(path) for path in paths]
        self._live = live
        self._looked = time.monotonic()
        self._looking = threading.Lock()
        self._failed_reads: list[UnreadableRunError] = []
        self.unreadable: list[UnreadableRunError] = []
        """Run folders inside the folders given that cannot be read (shown on the index)."""
        found = discover_runs(paths, SHOWN_KINDS, empty_ok=live)
        self.unreadable += found.unreadable
        self.not_shown: dict[str, list[Path]] = found.other_kinds
        """The runs of other kinds in the folders given, by kind (:meth:`not_shown_note`)."""
        stores = [open_run(path) for path in found.runs]
        for store in stores:
            if store.manifest.kind not in SHOWN_KINDS:
                raise ConfigError(f"{store.path} is a {store.manifest.kind!r} run; {SHOWN_WORDS}")
        self.entries: list[RunEntry] = []
        self._locks: dict[str, threading.Lock] = {}
        self._qa_runs: list[tuple[RunManifest, Path]] = []
        self._manifests_seen: dict[Path, tuple[int, int] | None] = {}
        """Each QA run's manifest file as last read (size, modification time): read again,
        for its label, only when it changed. A run added has none: its first look reads it."""
        self._labelling = threading.Lock()
        self._add(stores)
        self._qa: dict[str, tuple[Stamp, QAView]] = {}
        self._agentic: dict[str, tuple[Stamp, AgenticView]] = {}
        self._comparison: tuple[tuple[QAView, ...], list[DatasetComparison]] | None = None
        self._rationales: dict[str, Rationales] = {}
        self._lock = threading.Lock()

    def _add(self, stores: Sequence[RunStore]) -> None:
        """Make entries of ``stores`` after those held: ids unique, QA labels told apart."""
        if not stores:
            return
        qa = [s for s in stores if s.manifest.kind == "qa"]
        held = len(self._qa_runs)  # the new runs' labels are told apart from theirs too
        self._qa_runs += [(s.manifest, s.path) for s in qa]
        qa_labels = dict(zip(qa, run_labels(self._qa_runs)[held:], strict=True))
        used = {entry.id for entry in self.entries}
        added = []
        for store in stores:
            base = _slug(store.path.resolve().name)
            run_id, n = base, 2
            while run_id in used:
                run_id, n = f"{base}-{n}", n + 1
            used.add(run_id)
            label = qa_labels.get(store) or _agentic_label(store.manifest.config)
            added.append(RunEntry(run_id, store.path, store.manifest.kind, label))
            self._locks[run_id] = threading.Lock()
        self.entries = [*self.entries, *added]  # a new list: a page iterating the old one is safe

    def _relabel(self, read: dict[Path, tuple[tuple[int, int] | None, RunManifest]]) -> None:
        """Take QA runs' manifests read again, and label the QA runs anew when one changed.

        ``read`` holds each by run directory, with the manifest file's stamp seen before
        reading. Every QA run's label is computed again, as
        :func:`~coordqa.analysis.run_labels` tells runs apart by the settings in which they
        differ: a run relabelled ``--label NEW`` (or given more trials) may change how its
        neighbours are told from it.
        """
        with self._labelling:
            self._manifests_seen.update({path: stamp for path, (stamp, _) in read.items()})
            runs = [(read.get(path, (None, held))[1], path) for held, path in self._qa_runs]
            if runs == self._qa_runs:
                return
            self._qa_runs = runs
            labels = dict(zip([path for _, path in runs], run_labels(runs), strict=True))
            self.entries = [
                replace(entry, label=labels[entry.path]) if entry.kind == "qa" else entry
                for entry in self.entries
            ]  # a new list: a page iterating the old one is safe

    def _read_changed_manifests(self) -> None:
        """Read again, for their labels, the QA runs' manifests whose file changed.

        One ``stat`` each; a manifest that cannot be read now keeps the label shown.
        """
        read = {}
        for _, path in self._qa_runs:
            stamp = _manifest_stamp_of(path)
            if path in self._manifests_seen and stamp == self._manifests_seen[path]:
                continue
            try:
                read[path] = (stamp, open_run(path).manifest)
            except StoreError:  # rewritten as we read, or damaged: the next look tries again
                continue
        self._relabel(read)

    def find_new_runs(self) -> None:
        """Add the runs written into the folders given since the viewer looked last.

        So a run made after ``coordqa view runs/`` started is shown without a restart, and a QA
        run relabelled since (``coordqa eval ... --label NEW``) by its new label. The folders
        are searched as at start (:func:`~coordqa.store.discover_runs`: the same kinds, the
        same checks of manifests and records), at most once every :attr:`LOOK_AGAIN_EVERY_S`
        seconds however many requests ask, as a search opens every run's manifest; a shown
        run's manifest is read again only when its file changed. Runs already shown keep their
        ids; a folder given that no longer holds runs leaves the runs already shown as they are.
        """
        with self._looking:
            if time.monotonic() - self._looked < self.LOOK_AGAIN_EVERY_S:
                return
            self._read_changed_manifests()
            try:
                found = discover_runs(self._given, SHOWN_KINDS, empty_ok=self._live)
                known = {entry.path for entry in self.entries}
                known |= {problem.path for problem in self._failed_reads}
                stores = [open_run(path) for path in found.runs if path not in known]
            except StoreError:  # a folder emptied, or a run damaged between looking and opening
                return
            finally:
                self._looked = time.monotonic()
            self._add([store for store in stores if store.manifest.kind in SHOWN_KINDS])
            self.not_shown = found.other_kinds
            shown = {entry.path for entry in self.entries}
            self.unreadable = _by_path(
                [p for p in found.unreadable if p.path not in shown] + self._failed_reads
            )

    def empty_note(self) -> str | None:
        """``no runs yet under runs; runs written there appear on reload``; None: runs shown.

        A live viewer started on a folder that holds no run yet says so, at start and on its
        run list, rather than showing an empty table (walkthrough 25, R3); an export, which
        shows no run written later, says nothing.
        """
        if self.entries or not self._live:
            return None
        folders = format_list([str(path) for path in self._given])
        return f"no runs yet under {folders}; runs written there appear on reload"

    def not_shown_note(self) -> str | None:
        """``2 play runs not shown: the viewer shows QA runs ...``; None: every run is shown.

        A folder's runs of another kind were left out of the index without a word, while the
        same run given alone is refused with why (walkthrough 17, R1): one wording for both.
        """
        if not self.not_shown:
            return None
        kinds = [
            counted(len(runs), f"{kind_words(kind)} run")
            for kind, runs in sorted(self.not_shown.items())
        ]
        return f"{format_list(kinds)} not shown: {SHOWN_WORDS}"

    @property
    def qa_entries(self) -> list[RunEntry]:
        """The QA runs, in the order given."""
        return [e for e in self.entries if e.kind == "qa"]

    def read_all(self) -> None:
        """Read every run now (QA runs whole, agentic runs' episode lists), so no page waits.

        ``coordqa view`` calls this before it serves or exports. A run whose records cannot be
        read leaves :attr:`entries` for :attr:`unreadable` (shown with its fix), so one damaged
        run does not hide the others. Later changes to a run's files are read again when a page
        of that run is asked for.
        """
        readable = []
        for entry in self.entries:
            try:
                if entry.kind == "qa":
                    self.qa(entry.id)
                else:
                    self.agentic(entry.id)
            except StoreError as exc:
                self._failed_reads.append(UnreadableRunError.of_records(entry.path, exc))
                continue
            readable.append(entry)
        self.entries = readable
        self.unreadable = _by_path(self.unreadable + self._failed_reads)

    def _of_kind(self, run_id: str, kind: RunKind) -> RunEntry:
        entry = self.get(run_id)
        if entry.kind != kind:
            raise LookupError(f"run {run_id!r} is a {entry.kind} run, not a {kind} run")
        return entry

    def get(self, run_id: str) -> RunEntry:
        """The run named ``run_id``.

        Raises:
            LookupError: no run has that id.
        """
        for looked_again in (False, True):
            if looked_again:
                self.find_new_runs()
            for entry in self.entries:
                if entry.id == run_id:
                    return entry
        shown = [entry.id for entry in self.entries]
        raise LookupError(
            f"no run {run_id!r}.{did_you_mean(run_id, shown)} This viewer shows {len(shown)} "
            f"run{'s' if len(shown) != 1 else ''} ({format_list(shown)}; its front page lists "
            "them all); a run written since into a folder it was given is found when asked for, "
            f"the folders being searched at most every {self.LOOK_AGAIN_EVERY_S:g} s: reload in "
            "a moment"
        )

    def _cached(self, cache: dict[str, tuple[Stamp, V]], entry: RunEntry, build: type[V]) -> V:
        """The view of ``entry`` in ``cache``, rebuilt when the run's files changed.

        A QA view rebuilt brings its manifest, and with it the run's label as it is now.
        """
        stamp = _stamp(entry.path)
        with self._locks[entry.id]:  # one run's slow first read leaves the other runs free
            held = cache.get(entry.id)
            if held is None or held[0] != stamp:
                held = (stamp, build(entry.path))
                cache[entry.id] = held
                if isinstance(held[1], QAView):
                    self._relabel({entry.path: (_manifest_stamp(stamp), held[1].manifest)})
            return held[1]

    def qa(self, run_id: str) -> QAView:
        """The view of QA run ``run_id``.

        Raises:
            LookupError: no QA run has that id.
        """
        return self._cached(self._qa, self._of_kind(run_id, "qa"), QAView)

    def agentic(self, run_id: str) -> AgenticView:
        """The view of agentic run ``run_id``.

        Raises:
            LookupError: no agentic run has that id.
        """
        return self._cached(self._agentic, self._of_kind(run_id, "agentic"), AgenticView)

    def comparison(self) -> list[DatasetComparison]:
        """The QA runs compared within each question set, computed again only when one changed.

        The paired bootstrap tests take about a second per pair, so a page view reuses them.
        """
        views = tuple(self.qa(e.id) for e in self.qa_entries)
        with self._lock:
            held = self._comparison
            if held is not None and len(held[0]) == len(views):
                if all(a is b for a, b in zip(held[0], views, strict=True)):
                    return held[1]
        result = compare_by_question_set(views)
        with self._lock:
            self._comparison = (views, result)
        return result

    def rationales(self, run_id: str) -> Rationales:
        """The solver rationales of QA run ``run_id``'s questions (its dataset read once)."""
        manifest = self.qa(run_id).manifest
        with self._lock:
            return self._rationales.setdefault(run_id, Rationales(manifest, self.get(run_id).path))
