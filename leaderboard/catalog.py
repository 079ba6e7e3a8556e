"""What the server ranks: the datasets of the QA track and the grids of the agentic track.

A submission is only comparable with others on the same questions or the same episodes, so the
server keeps its own copy of both and never takes them from a bundle:

- a **dataset** (a release bundled with coordqa, or registered by an admin with ``coordqa
  leaderboard dataset add``) is known by its content fingerprint; registered rows are stored in
  the database, so re-scoring needs no file;
- a **grid** (installed with coordqa, :func:`coordqa.agentic.registered_grids`, or registered
  with ``coordqa leaderboard grid add``) fixes the tasks of an agentic run: games, layouts,
  seeds, horizons, partners, seats and preset. It is known by its name and fingerprinted over
  its tasks; an agentic submission names its grid and must play each task exactly once, with
  one agent and model.

:class:`BoardCatalog` holds both; a lookup that misses re-reads the registered ones once, so an
admin can register while the server runs; a listing of them re-reads them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from coordqa.errors import ConfigError, DatasetError, UnknownNameError
from coordqa.leaderboard.bundle import MAX_REPLIES
from coordqa.leaderboard.db import Database, DatasetRow, GridRow, as_utc
from coordqa.leaderboard.names import admin_text
from coordqa.leaderboard.settings import DEFAULT_MAX_TRIALS
from coordqa.registry import did_you_mean

if TYPE_CHECKING:
    from coordqa.agentic import EpisodeTask, GridConfig
    from coordqa.dataset import QuestionRow

__all__ = [
    "MAX_QUESTIONS",
    "MAX_TRIALS",
    "BoardCatalog",
    "KnownDataset",
    "KnownGrid",
    "known_dataset",
    "known_datasets",
    "known_grids",
    "list_datasets",
    "list_grids",
    "Registration",
    "register_dataset",
    "register_grid",
]


MAX_QUESTIONS = 1_000
"""Most questions a registered dataset may have (CoordinationQA has 198)."""
MAX_TRIALS = MAX_REPLIES // MAX_QUESTIONS
"""Highest trial cap a server may set: a bundle of the largest dataset still fits
:data:`coordqa.leaderboard.bundle.MAX_REPLIES`."""


@dataclass(frozen=True)
class KnownDataset:
    """A dataset the server accepts submissions for."""

    name: str
    """Display name: a release (``coordinationqa-v1``, ``coordinationqa-v1.1``, ``example``), or
    the name given when registering."""
    fingerprint: str
    """:func:`coordqa.dataset.dataset_fingerprint` of its rows."""
    version: str | None
    """The rows' ``version`` column (:func:`coordqa.dataset.dataset_identity`)."""
    rows: Mapping[str, QuestionRow]
    """Rows by question id."""


def known_dataset(name: str, rows: Sequence[QuestionRow]) -> KnownDataset:
    """``rows`` as a dataset named ``name``, with its fingerprint and version."""
    from coordqa.dataset import dataset_identity

    identity = dataset_identity(name, rows)
    by_id = {str(r["question_id"]): r for r in rows}
    return KnownDataset(name, identity.fingerprint, identity.version, by_id)


def known_datasets(db: Database) -> dict[str, KnownDataset]:
    """Datasets this server accepts, by fingerprint: bundled releases, then registered ones.

    Every release (``coordinationqa-v1`` as shipped, ``coordinationqa-v1.1``...) is its own
    dataset, so each version has its own board.
    """
    from coordqa.dataset import RELEASES, load_rows

    found: dict[str, KnownDataset] = {}
    for release in RELEASES:
        try:
            rows = load_rows(release.name)
        except DatasetError:
            continue  # not shipped in this build of coordqa
        known = known_dataset(release.name, rows)
        found[known.fingerprint] = known
    with db.session() as session:
        for row in session.scalars(select(DatasetRow)):
            # Registered rows passed load_rows' validation (register_dataset) before storing.
            rows = cast("list[QuestionRow]", row.rows)
            found[row.fingerprint] = known_dataset(row.name, rows)
    return found


def register_dataset(db: Database, path: str | Path, name: str | None = None) -> KnownDataset:
    """Register the dataset at ``path`` (folder, .parquet or .jsonl) for submissions.

    Its rows are copied into the database, so the server re-scores without the file.
    Registering the same content again under the same name is a no-op; under another name it is
    refused (:func:`content_registered_as`), never renamed or ignored in silence, and other
    content under a registered name is refused too (:func:`name_taken`).

    Raises:
        DatasetError: the file is missing or breaks the dataset schema.
        ConfigError: the name is blank, too long or not plain text, the dataset has more
            than :data:`MAX_QUESTIONS` questions, its content is registered under another
            name, or the name holds another dataset.
    """
    from coordqa.dataset import dataset_fingerprint, load_rows

    rows = load_rows(path)
    if len(rows) > MAX_QUESTIONS:
        raise ConfigError(
            f"{path} has {len(rows)} questions; a leaderboard dataset has at most "
            f"{MAX_QUESTIONS} (every submission carries every reply): register a subset"
        )
    fingerprint = dataset_fingerprint(rows)
    label = admin_text(name or Path(path).stem, what="the dataset's name")

    def store() -> None:
        with db.session() as session:
            existing = session.query(DatasetRow).filter_by(fingerprint=fingerprint).one_or_none()
            named = session.query(DatasetRow).filter_by(name=label).one_or_none()
            if existing is None and named is not None:
                raise name_taken("dataset", label, named.fingerprint)
            if existing is None:
                session.add(DatasetRow(fingerprint=fingerprint, name=label, rows=rows))
            elif existing.name != label:
                raise content_registered_as(
                    db,
                    "dataset",
                    existing.name,
                    label,
                    fingerprint,
                    f"submissions on it rank on the board of {existing.name!r}",
                )

    _checked_again_after_a_race(store)
    return known_dataset(label, rows)


T = TypeVar("T")


def _checked_again_after_a_race(store: Callable[[], T]) -> T:
    """Run ``store`` (check what the board holds, then insert) once more if the insert collides.

    Another admin command can commit the same content between the check and the insert; the
    database's unique fingerprint then refuses ours (an IntegrityError, which reached the admin
    as a traceback). Checked again, the content is found and answered as any registered one.
    """
    try:
        return store()
    except IntegrityError:
        return store()


def name_taken(what: str, name: str, registered: str) -> ConfigError:
    """The refusal of other content under a name the board holds: the one wording.

    A name names one dataset or grid (the database's unique name, which a race past this
    check meets): a bundle, a board's page and the API name it, and submissions rank on what
    it held when they came. ``registered``: the fingerprint the name has.
    """
    return ConfigError(
        f"a different {what} is already registered as {name!r} ({registered[:12]}); a "
        f"{what} never changes once submissions rank on it: register this one under a new "
        f"name (e.g. with a version: --name {name}-v2)"
    )


def content_registered_as(
    db: Database, what: str, registered: str, asked: str, fingerprint: str, use: str
) -> ConfigError:
    """The refusal of content the board already holds under another name: the one wording.

    A board keeps one registration of each content (its fingerprint is unique), so a second
    name would be ignored in silence (blind walkthrough 10 #304, a dataset) or refused by the
    database with a traceback (#174, a grid): say which name it has and how to use it.
    """
    return ConfigError(
        f"this {what}'s content is already registered as {registered!r} ({fingerprint[:12]}), "
        f"so it was not registered again as {asked!r}: a board registers each content once; "
        f"{use}. `{db.command(f'{what} list')}` shows the registered ones"
    )


@dataclass(frozen=True)
class KnownGrid:
    """A grid the agentic track ranks submissions on."""

    name: str
    """The name a bundle gives (its ``grid`` field)."""
    version: int | None
    """The grid's ``version`` (registered grids have one)."""
    fingerprint: str
    """:meth:`coordqa.agentic.GridConfig.fingerprint`: the hash of its tasks."""
    config: GridConfig
    """The grid; its tasks are what a submission must play."""

    @property
    def identity(self) -> dict[str, Any]:
        """What the grid fixes, as shown on its board: preset, games, partners, seats."""
        return self.config.model_dump(
            mode="json", include={"preset", "games", "partners", "positions"}
        )

    def tasks(self) -> dict[str, EpisodeTask]:
        """Every task of the grid (game, layout, partner, seat, seed, options, preset), by key."""
        return {task.key: task for task in self.config.tasks()}

    @property
    def play(self) -> str:
        """What ``coordqa agentic grid`` takes to play it: the name of a grid coordqa ships.

        A grid an admin registered is played from its file, which the board does not know
        (an installed grid's name is never registered with other tasks): ``GRID_FILE.yaml``.
        """
        from coordqa.agentic import registered_grids

        return self.name if self.name in registered_grids() else "GRID_FILE.yaml"


def _installed_grids() -> dict[str, KnownGrid]:
    """The grids installed with coordqa (:func:`coordqa.agentic.registered_grids`)."""
    from coordqa.agentic import registered_grids

    return {
        name: KnownGrid(name, grid.version, grid.fingerprint, grid.config)
        for name, grid in registered_grids().items()
    }


def _known_grid(row: GridRow) -> KnownGrid:
    from coordqa.agentic import parse_grid, stored_form

    # registered by an earlier coordqa, perhaps in a form refused today (a self-play seat)
    config = parse_grid(stored_form(dict(row.config)), where=f"grid {row.name!r} in the database")
    return KnownGrid(row.name, config.version, row.fingerprint, config)


def known_grids(db: Database) -> dict[str, KnownGrid]:
    """Grids this server ranks, by name: the installed ones, then those an admin registered."""
    found = _installed_grids()
    with db.session() as session:
        found.update((row.name, _known_grid(row)) for row in session.scalars(select(GridRow)))
    return found


@dataclass(frozen=True)
class Registration:
    """A dataset or grid as ``coordqa leaderboard dataset list`` / ``grid list`` show it."""

    name: str
    """The name it is known by (a grid's is what submissions give with ``--grid``)."""
    version: str | None
    """The dataset's ``version`` column or the grid's ``version``, if it has one."""
    fingerprint: str
    """Its content's fingerprint (the registration's identity)."""
    size: int
    """Questions of a dataset, tasks (episodes) of a grid."""
    registered_at: datetime | None
    """When an admin registered it (UTC); None for one shipped with coordqa."""


def list_datasets(db: Database) -> list[Registration]:
    """Every dataset the board accepts: the shipped releases, then the registered, oldest first."""
    shipped = {row.fingerprint for row in _registered(db, DatasetRow)}
    listing = [
        Registration(d.name, d.version, fp, len(d.rows), None)
        for fp, d in known_datasets(db).items()
        if fp not in shipped
    ]
    for row in _registered(db, DatasetRow):
        rows = cast("list[QuestionRow]", row.rows)
        known = known_dataset(row.name, rows)
        listing.append(
            Registration(row.name, known.version, row.fingerprint, len(rows), as_utc(row.added_at))
        )
    return listing


def list_grids(db: Database) -> list[Registration]:
    """Every grid the board ranks: the installed ones, then the registered, oldest first."""
    listing = [_registration(grid, None) for grid in _installed_grids().values()]
    listing.extend(
        _registration(_known_grid(row), as_utc(row.added_at)) for row in _registered(db, GridRow)
    )
    return listing


def _registration(grid: KnownGrid, registered_at: datetime | None) -> Registration:
    version = None if grid.version is None else str(grid.version)
    return Registration(grid.name, version, grid.fingerprint, len(grid.tasks()), registered_at)


RowT = TypeVar("RowT", DatasetRow, GridRow)


def _registered(db: Database, table: type[RowT]) -> list[RowT]:
    """The rows an admin registered in ``table``, oldest first (detached: read-only)."""
    with db.session() as session:
        rows = list(session.scalars(select(table).order_by(table.id)))
        session.expunge_all()
    return rows


def register_grid(db: Database, path: str | Path, name: str | None = None) -> KnownGrid:
    """Register the grid YAML at ``path`` under ``name`` (default: the grid's own ``name``).

    The grids installed with coordqa (``smoke``, ``paper``) are known without registering;
    this adds others. Only the grid's tasks count (its fingerprint): the file's agents, models
    and runtime settings are not what a submission is held to. Registering the same grid under
    the same name again is a no-op.

    Raises:
        ConfigError: the file is not a valid grid, names unknown games, layouts or partners,
            ``name`` is not plain text, or it is taken by an installed grid or by a different
            registered one (grids never change: register a new version under a new name, e.g.
            ``paper-v2``), or the same tasks are installed or registered under another name.
    """
    from coordqa.agentic import load_grid

    config = load_grid(path)
    fingerprint = config.fingerprint()  # unknown games, layouts, partners are refused here
    label = admin_text(name or config.name, what="the grid's name")
    installed_grids = _installed_grids()
    for installed_name, grid in installed_grids.items():
        if grid.fingerprint == fingerprint and installed_name != label:
            raise content_registered_as(
                db, "grid", installed_name, label, fingerprint, _submit_as(installed_name)
            )
    installed = installed_grids.get(label)
    if installed is not None:
        if installed.fingerprint == fingerprint:
            return installed
        raise ConfigError(
            f"{label!r} is a grid installed with coordqa (version {installed.version}); "
            "register yours under another name (--name)"
        )
    stored = config.model_dump(mode="json", exclude={"runtime"})

    def store() -> KnownGrid:
        with db.session() as session:
            same_tasks = session.scalars(
                select(GridRow).where(GridRow.fingerprint == fingerprint)
            ).one_or_none()
            if same_tasks is not None and same_tasks.name != label:
                raise content_registered_as(
                    db, "grid", same_tasks.name, label, fingerprint, _submit_as(same_tasks.name)
                )
            existing = session.scalars(select(GridRow).where(GridRow.name == label)).one_or_none()
            if existing is None:
                row = GridRow(name=label, fingerprint=fingerprint, config=stored)
                session.add(row)
                session.flush()
            elif existing.fingerprint != fingerprint:
                raise name_taken("grid", label, existing.fingerprint)
            else:
                row = existing
            return _known_grid(row)

    return _checked_again_after_a_race(store)


def _submit_as(name: str) -> str:
    """How runs of the grid registered as ``name`` are submitted."""
    return f"submit runs of it with --grid {name}"


K = TypeVar("K")


class _Refreshing(Mapping[str, K], Generic[K]):
    """A mapping loaded from the database that looks again, once, on a miss and on each listing.

    Looking again is one query for the registered keys; the items are re-read only when a key
    is new, so a stream of unknown keys costs no more than that query each. A listing (every
    grid, to find the one a run's tasks are, or the board's pages) looks again too: a lookup
    that hit never did, so a grid registered while the server ran was missing from them until
    someone named it (blind walkthrough 13 #208).
    """

    def __init__(
        self,
        db: Database,
        load: Callable[[Database], dict[str, K]],
        registered: Callable[[Session], set[str]],
    ) -> None:
        self._db = db
        self._load = load
        self._registered = registered
        self._items = load(db)

    def __getitem__(self, key: str) -> K:
        if key not in self._items:
            self.refresh()
        return self._items[key]

    def refresh(self) -> None:
        """Re-read the registered items if the database holds new ones."""
        with self._db.session() as session:
            new = not self._registered(session) <= set(self._items)
        if new:
            self._items = self._load(self._db)

    def __iter__(self) -> Iterator[str]:
        self.refresh()
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class BoardCatalog:
    """What a server accepts: datasets (by fingerprint), grids (by name), trials per question."""

    def __init__(self, db: Database, *, max_trials: int = DEFAULT_MAX_TRIALS) -> None:
        """Load the bundled and registered datasets and the registered grids.

        Raises:
            ConfigError: ``max_trials`` is not between 1 and :data:`MAX_TRIALS`.
        """
        if not 1 <= max_trials <= MAX_TRIALS:
            raise ConfigError(
                f"--max-trials must be between 1 and {MAX_TRIALS} (a bundle holds at most "
                f"{MAX_REPLIES} replies), got {max_trials}"
            )
        self.max_trials = max_trials
        self.datasets: _Refreshing[KnownDataset] = _Refreshing(
            db, known_datasets, lambda s: set(s.scalars(select(DatasetRow.fingerprint)))
        )
        self.grids: _Refreshing[KnownGrid] = _Refreshing(
            db, known_grids, lambda s: set(s.scalars(select(GridRow.name)))
        )

    def dataset(self, fingerprint: str) -> KnownDataset:
        """The dataset with ``fingerprint``.

        Raises:
            UnknownNameError: none is known (the message lists the known ones and what to do).
        """
        found = self.datasets.get(fingerprint)
        if found is None:
            known = ", ".join(f"{d.name} ({fp[:12]})" for fp, d in sorted(self.datasets.items()))
            raise UnknownNameError(
                f"unknown dataset fingerprint {fingerprint[:12]}...: this server accepts "
                f"{known or 'none'}. Run `coordqa eval` on one of these datasets, or ask the "
                "admin to register yours (`coordqa leaderboard dataset add PATH`)."
            )
        return found

    def grid(self, name: str) -> KnownGrid:
        """The grid registered as ``name``.

        Raises:
            UnknownNameError: none is (the message suggests the closest registered names, as
                every "unknown" error does, and lists them all).
        """
        found = self.grids.get(name)
        if found is None:
            raise unknown_grid(name, self.grids)
        return found


def unknown_grid(name: str, registered: Iterable[str]) -> UnknownNameError:
    """The error for a grid the board does not rank: the one wording, wherever a grid is named.

    A submitted run's grid and a board-run job's ``--grid`` are refused alike (blind walkthrough
    9 found the job route's own "unknown grid smok; this board ranks ..." with no suggestion).
    """
    known = sorted(registered)
    return UnknownNameError(
        f"unknown grid {name!r}.{did_you_mean(name, known)} This server ranks agentic runs on: "
        f"{', '.join(known) or 'none yet'}. Give one of these with --grid NAME (a submitted run "
        "must have played it), or ask the admin to register yours (`coordqa leaderboard grid "
        "add GRID.yaml --name NAME`)."
    )
