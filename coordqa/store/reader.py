"""Reading runs back: the base of the one reader per kind of run, and how far a run got."""

from __future__ import annotations

import abc
import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from coordqa.store.directory import RunStore, another_kind, open_run
from coordqa.store.manifest import RunKind, RunManifest, reported_by

_Reader = TypeVar("_Reader", bound="RunReader")


@dataclass(frozen=True)
class RunCounts:
    """How far a run got: its units (QA samples, episodes) planned, done and failed."""

    unit: str
    """What the run counts, plural (``samples``, ``episodes``)."""
    planned: int | None
    """Units the run plans (None: the run does not say)."""
    done: int
    """Units with a result."""
    failed: int
    """Units whose latest attempt failed (retried when the run is resumed)."""
    skipped: int = 0
    """Units not run because something they need is not ready (an agentic partner without its
    weights): no attempt failed; they run once it is ready and the run is resumed."""

    @property
    def complete(self) -> bool:
        """Whether every planned unit has a result."""
        return self.planned is not None and self.done >= self.planned


class RunReader(abc.ABC):
    """A run directory opened for reading by the reader of its kind.

    One reader per kind reads runs back: :class:`QARun` (``coordqa eval``),
    :class:`coordqa.agentic.AgenticRun` (``coordqa agentic run/grid``) and
    :class:`coordqa.play.PlayRun` (``coordqa play``). Reports, the viewer and the
    leaderboard read runs only through them, so they agree on what a run holds, and each says
    the same things about its run: where it is (:attr:`path`), what was run (:attr:`manifest`),
    what reading met (:attr:`warnings`) and how far it got (:meth:`counts`).
    """

    kind: ClassVar[RunKind]
    """The kind of run the reader reads."""
    elsewhere: ClassVar[str]
    """What to do with a run of another kind (ends the error's message, before the command that
    reports the kind met: :func:`~coordqa.store.manifest.reported_by`)."""

    def __init__(self, store: RunStore) -> None:
        """Wrap an open run of the reader's kind.

        Raises:
            StoreError: the run is of another kind.
        """
        stored = store.manifest.kind
        if stored != self.kind:
            report = reported_by(stored)
            fix = f"{self.elsewhere} ({report})" if report else self.elsewhere
            raise another_kind(store.path, stored, self.kind, fix)
        self.store = store

    @property
    def path(self) -> Path:
        """The run directory."""
        return self.store.path

    @property
    def manifest(self) -> RunManifest:
        """What was run."""
        return self.store.manifest

    @property
    def warnings(self) -> list[str]:
        """Problems met while reading (truncated last lines, stale derived files)."""
        return self.store.warnings

    @abc.abstractmethod
    def counts(self) -> RunCounts:
        """Units (samples, episodes) planned, done and failed."""

    def players(self) -> str | None:
        """Who plays, in words, for run lists; None for kinds whose model says it all.

        An agentic run's agents and partners (``cac with itself``).
        """
        return None

    @classmethod
    def read(cls: type[_Reader], run: _Reader | RunStore | str | os.PathLike[str]) -> _Reader:
        """Open a run directory (or wrap an open store, or pass a reader on) for reading.

        Raises:
            StoreError: not a run directory, or not a run of the reader's kind.
        """
        if isinstance(run, cls):
            return run
        if isinstance(run, RunReader):  # a reader of another kind: refused by the constructor
            return cls(run.store)
        return cls(run if isinstance(run, RunStore) else open_run(run))
