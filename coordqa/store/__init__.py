"""Run directories: one format for QA runs, agentic runs and played games.

A run is a directory holding

- ``manifest.json``: a :class:`RunManifest` saying what was run (package version, command line,
  configuration, dataset fingerprint, run fingerprint), rewritten atomically
  (:mod:`~coordqa.store.manifest`);
- append-only JSONL *streams* (``samples.jsonl``, ``calls.jsonl``...): every record is written as
  soon as it exists, flushed and fsynced, so a killed process loses at most the line it was
  writing. A record counts as written when its newline is on disk: a truncated last line is
  ignored on read (and counted in :attr:`RunStore.warnings`) and cut off before the next append,
  never repaired into something that was not written (:mod:`~coordqa.store.directory`);
- derived files (scores, summaries, tables) rewritten atomically from the streams, so they can
  always be rebuilt without calling a model.

Resuming is the caller's job (it reads the streams and skips keys already present); the store's
part is to refuse resuming a run whose configuration differs from the one being started
(:meth:`RunStore.open_or_create`), so two different experiments never mix in one directory.

Runs are read back by one reader per kind (:class:`RunReader`, :mod:`~coordqa.store.reader`):
:class:`QARun` here (:mod:`~coordqa.store.qa`), the agentic and play readers with their tracks.
:mod:`~coordqa.store.discovery` finds run directories in folders. Import the names from here.
"""

from coordqa.store.directory import (
    RunStore,
    UnreadableRunError,
    check_kind,
    check_resumable,
    check_run_path,
    open_run,
    open_to_write,
    refuse_set_folder,
    run_folder_words,
)
from coordqa.store.discovery import (
    FoundRuns,
    RunSurvey,
    discover_runs,
    no_runs_under,
    survey_runs,
)
from coordqa.store.manifest import MANIFEST, SCHEMA_VERSION, DatasetInfo, RunKind, RunManifest
from coordqa.store.qa import (
    CALLS,
    QUESTIONS,
    SCORES_FILE,
    SUMMARY_FILE,
    QARun,
    read_qa_run,
)
from coordqa.store.reader import RunCounts, RunReader

__all__ = [
    "CALLS",
    "MANIFEST",
    "QUESTIONS",
    "SCHEMA_VERSION",
    "SCORES_FILE",
    "SUMMARY_FILE",
    "DatasetInfo",
    "FoundRuns",
    "QARun",
    "RunCounts",
    "RunKind",
    "RunManifest",
    "RunReader",
    "RunStore",
    "RunSurvey",
    "UnreadableRunError",
    "check_kind",
    "check_resumable",
    "check_run_path",
    "discover_runs",
    "no_runs_under",
    "open_run",
    "refuse_set_folder",
    "run_folder_words",
    "open_to_write",
    "read_qa_run",
    "survey_runs",
]
