"""Run directories: one format for QA runs, agentic runs and played games.

A run is a directory holding

- ``manifest.json``: a :class:`RunManifest` saying what was run (package version, command line,
  configuration, dataset fingerprint, run fingerprint), rewritten atomically;
- append-only JSONL *streams* (``samples.jsonl``, ``calls.jsonl``...): every record is written as
  soon as it exists, flushed and fsynced, so a killed process loses at most the line it was
  writing. A record counts as written when its newline is on disk: a truncated last line is
  ignored on read (and counted in :attr:`RunStore.warnings`) and cut off before the next append,
  never repaired into something that was not written;
- derived files (scores, summaries, tables) rewritten atomically from the streams, so they can
  always be rebuilt without calling a model.

Resuming is the caller's job (it reads the streams and skips keys already present); the store's
part is to refuse resuming a run whose configuration differs from the one being started
(:meth:`RunStore.open_or_create`), so two different experiments never mix in one directory.
"""

from __future__ import annotations

import abc
import json
import logging
import os
import re
import sys
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from coordqa._version import __version__
from coordqa.errors import StoreError
from coordqa.files import atomic_write_bytes
from coordqa.jsonvalues import JSONObject, content_hash
from coordqa.records import QACall, Question, Record, Sample, SampleKey, upgrade

if TYPE_CHECKING:
    import asyncio

try:  # POSIX only; elsewhere two writers on one run are not detected
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "SCHEMA_VERSION",
    "DatasetInfo",
    "QARun",
    "RunCounts",
    "RunKind",
    "RunManifest",
    "RunReader",
    "RunStore",
    "atomic_write_bytes",
    "content_hash",
    "discover_runs",
    "find_runs",
    "open_run",
    "read_qa_run",
]

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 3
"""Version of the run directory format; bumped when a reader of the old format would misread it.

1: the first format. 2: typed records (:mod:`coordqa.records`): one shape for every model call
(``text`` + nested ``usage``), and QA outcomes only in the derived ``scores.jsonl`` (format 1 also
appended them to ``samples.jsonl``, which went stale after a re-score; it is ignored now).
3: agent exchanges typed per role, HM's Vanilla Mind Prompting call as role ``vanilla`` (formats
1 and 2 called it ``tom``, like CAC's ToM call).
Format 1 runs are read through :func:`coordqa.records.upgrade`; resuming one rewrites its
manifest as format 2, since the records it appends are."""

MANIFEST = "manifest.json"
_LOCK = ".lock"
_STREAM_NAME = re.compile(r"^[a-z][a-z0-9_]*$")

RunKind = Literal["qa", "agentic", "play"]
RunStatus = Literal["created", "running", "finished", "interrupted", "failed"]

T = TypeVar("T")
_Reader = TypeVar("_Reader", bound="RunReader")


def _now() -> datetime:
    return datetime.now(timezone.utc)


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

    @property
    def complete(self) -> bool:
        """Whether every planned unit has a result."""
        return self.planned is not None and self.done >= self.planned


class DatasetInfo(BaseModel):
    """The dataset a run used, identified by content rather than by path."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """What the user asked for (a bundled name or a path)."""
    fingerprint: str
    """Content fingerprint of the whole dataset the questions were drawn from (which of them
    a run answered is :meth:`QARun.question_set`)."""
    version: str | None = None
    """The dataset's declared version."""
    num_questions: int
    """Questions in the run after filtering."""


class RunManifest(BaseModel):
    """What a run is: enough to reproduce it and to refuse resuming it with other settings.

    ``config`` holds everything that changes results (model, api_base, sampling, trials, filters,
    prompt layout, seeds); a resumed run must have exactly the same ``config``, dataset
    fingerprint and ``fingerprint``. ``runtime`` holds settings that only change how the run is
    executed (concurrency, cache, retries) and may differ between sessions.
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    """Run directory format version (:data:`SCHEMA_VERSION` when written)."""
    kind: RunKind
    """``qa``, ``agentic`` or ``play``."""
    coordqa_version: str = __version__
    """Version of coordqa that created the run."""
    created_at: datetime = Field(default_factory=_now)
    """When the run directory was created (UTC)."""
    started_at: datetime | None = None
    """When the latest session (first run or resume) started."""
    finished_at: datetime | None = None
    """When the run last finished all its work (None while unfinished)."""
    status: RunStatus = "created"
    """``created``, ``running``, ``finished``, ``interrupted`` (Ctrl-C) or ``failed`` (stopped
    on errors); a killed run stays ``running``."""
    sessions: int = 0
    """How many times the run was started (1 + number of resumes)."""
    command: list[str] = Field(default_factory=lambda: list(sys.argv))
    """The command line of the session that created the run, or of the latest session that
    changed its settings (another ``--api-base`` or more ``--trials``, with calls to make)."""
    config: dict[str, Any]
    """Everything that changes results; must match exactly to resume."""
    runtime: dict[str, Any] = Field(default_factory=dict)
    """Execution settings that may change between sessions (concurrency, cache, retries)."""
    dataset: DatasetInfo | None = None
    """The dataset, for runs that use one."""
    fingerprint: str
    """Hash of the config, the dataset and every question, prompt and answer key of the run."""
    label: str | None = None
    """A short name the user gave the run (``coordqa eval --label``), shown instead of the model
    name wherever runs are compared or listed; it changes no result, and a later session may
    rename the run."""

    def mismatches(self, other: RunManifest) -> list[str]:
        """Human-readable differences that forbid resuming this run as ``other``."""
        problems: list[str] = []
        if self.kind != other.kind:
            problems.append(f"kind: {self.kind!r} != {other.kind!r}")
        for key in sorted(set(self.config) | set(other.config)):
            mine, theirs = self.config.get(key), other.config.get(key)
            if mine != theirs:
                problems.append(f"{key}: stored {mine!r}, requested {theirs!r}")
        stored_fp = self.dataset.fingerprint if self.dataset else None
        requested_fp = other.dataset.fingerprint if other.dataset else None
        if stored_fp != requested_fp:
            problems.append(f"dataset fingerprint: stored {stored_fp}, requested {requested_fp}")
        if not problems and self.fingerprint != other.fingerprint:
            problems.append(
                f"run fingerprint: stored {self.fingerprint[:12]}, requested "
                f"{other.fingerprint[:12]} (questions, prompts or answer keys changed)"
            )
        return problems


def _dumps(record: Any, where: str) -> str:
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"cannot store a record in {where}: {exc}. Records must be JSON data "
            "(dict, list, str, int, finite float, bool, None, datetime, Path)."
        ) from exc


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class RunStore:
    """A run directory opened for reading and appending.

    Create one with :meth:`create`, :meth:`open_or_create` or :func:`open_run`. The writer
    constructors (:meth:`create`, :meth:`open_or_create`) and the first append take an exclusive
    lock on the directory (POSIX), so two processes never write the same run at once; reading
    needs no lock. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: Path, manifest: RunManifest) -> None:
        """Wrap an existing run directory; prefer the constructors below."""
        self.path = path
        self.manifest = manifest
        self.warnings: list[str] = []
        """Problems met while reading (truncated last lines), for the caller to show."""
        self._writers: dict[str, IO[bytes]] = {}
        self._syncs: dict[str, _GroupSync] = {}
        self._lock: IO[bytes] | None = None

    # -- constructors -----------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike[str], manifest: RunManifest) -> RunStore:
        """Create a new run at ``path`` (which must not hold a run yet)."""
        root = Path(path)
        if (root / MANIFEST).exists():
            raise StoreError(
                f"{root} already holds a run; open it with open_run(), or choose another --out"
            )
        root.mkdir(parents=True, exist_ok=True)
        store = cls(root, manifest)
        store._acquire_lock()
        store.write_json(MANIFEST, manifest.model_dump(mode="json"))
        return store

    @classmethod
    def open_or_create(cls, path: str | os.PathLike[str], manifest: RunManifest) -> RunStore:
        """Resume the run at ``path`` if it has the same configuration, or create it.

        Raises:
            StoreError: the directory holds a run with another configuration, dataset or set
                of questions (the message lists the differences and the fix).
        """
        root = Path(path)
        if not (root / MANIFEST).exists():
            return cls.create(root, manifest)
        store = open_run(root)
        store._acquire_lock()
        problems = store.manifest.mismatches(manifest)
        if problems:
            store.close()
            raise StoreError(
                f"{root} holds a run with a different configuration ("
                + "; ".join(problems)
                + "). Use another --out directory, or the same options as that run to resume it."
            )
        store.update_manifest(runtime=manifest.runtime, schema_version=SCHEMA_VERSION)
        return store

    # -- manifest ---------------------------------------------------------------------------

    def update_manifest(self, **changes: Any) -> RunManifest:
        """Change manifest fields and rewrite ``manifest.json`` atomically."""
        data = self.manifest.model_dump()
        data.update(changes)
        try:
            self.manifest = RunManifest.model_validate(data)
        except ValidationError as exc:
            raise StoreError(f"invalid manifest update {sorted(changes)}: {exc}") from exc
        self.write_json(MANIFEST, self.manifest.model_dump(mode="json"))
        return self.manifest

    def mark_started(self) -> None:
        """Record the start of a session (first run or resume)."""
        self.update_manifest(
            started_at=_now(),
            finished_at=None,
            status="running",
            sessions=self.manifest.sessions + 1,
        )

    def mark_finished(self) -> None:
        """Record that the run completed all its work."""
        self.update_manifest(finished_at=_now(), status="finished")

    def mark_interrupted(self) -> None:
        """Record that the session was stopped before the end (Ctrl-C)."""
        self.update_manifest(status="interrupted")

    def mark_failed(self) -> None:
        """Record that the session ended on errors: a refused key, a dead server, failed calls.

        Resuming retries what failed.
        """
        self.update_manifest(status="failed")

    # -- streams ----------------------------------------------------------------------------

    def stream_path(self, stream: str) -> Path:
        """The file of a JSONL stream (``<stream>.jsonl``)."""
        if not _STREAM_NAME.match(stream):
            raise StoreError(
                f"invalid stream name {stream!r}: use lowercase letters, digits and '_' "
                "(for example 'samples' or 'calls')"
            )
        return self.path / f"{stream}.jsonl"

    def append(self, stream: str, record: Mapping[str, Any]) -> None:
        """Append one record to ``stream``, durable (flushed and fsynced) when this returns."""
        self.append_many(stream, [record])

    def append_many(self, stream: str, records: Sequence[Mapping[str, Any]]) -> None:
        """Append ``records`` in order with one fsync: all are durable when this returns.

        Each line is flushed as it is written, so a process killed halfway keeps the records
        written so far (and at most a partial last line, ignored on read).
        """
        for record in records:
            self._write_line(stream, record)
        if records:
            os.fsync(self._writer(stream).fileno())

    async def append_async(self, stream: str, record: Mapping[str, Any]) -> None:
        """Like :meth:`append`, for asyncio code: the fsync runs in a worker thread, shared.

        The line is written and flushed before the first ``await``, so record order is the call
        order and a killed process keeps the record; only the wait for the disk (milliseconds
        per fsync, which would otherwise stall every task of the event loop) is moved off the
        loop. The record is durable against power loss when this returns. Concurrent appends
        share fsyncs (group commit): one fsync makes every line written before it durable, so
        many calls finishing together cost one or two fsyncs, not one each.
        """
        self._write_line(stream, record)
        await self._sync_of(stream).sync()

    async def append_in_order_async(self, records: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Append ``(stream, record)`` pairs in order, then make them all durable.

        Every line is written and flushed before the first ``await`` (a cancelled caller loses
        none of them); then each stream is fsynced once, shared with concurrent appends, in the
        order the records first name the streams, so a record is never durable before one of
        another stream queued ahead of it (an episode before its exchanges). A queue of records
        costs one fsync per stream, not one per record.
        """
        for stream, record in records:
            self._write_line(stream, record)
        for stream in dict.fromkeys(stream for stream, _ in records):
            await self._sync_of(stream).sync()

    def _write_line(self, stream: str, record: Mapping[str, Any]) -> None:
        """Write and flush one record."""
        line = (_dumps(dict(record), self.stream_path(stream).name) + "\n").encode("utf-8")
        handle = self._writer(stream)
        handle.write(line)
        handle.flush()
        self._sync_of(stream).written += 1

    def _sync_of(self, stream: str) -> _GroupSync:
        group = self._syncs.get(stream)
        if group is None:
            group = self._syncs[stream] = _GroupSync(self._writer(stream).fileno())
        return group

    def append_record(self, stream: str, record: Record) -> None:
        """Append a typed record (:mod:`coordqa.records`) to ``stream``; see :meth:`append`."""
        self.append(stream, record.to_json())

    def append_records(self, stream: str, records: Sequence[Record]) -> None:
        """Append typed records with one fsync; see :meth:`append_many`."""
        self.append_many(stream, [record.to_json() for record in records])

    async def append_record_async(self, stream: str, record: Record) -> None:
        """Append a typed record from asyncio code; see :meth:`append_async`."""
        await self.append_async(stream, record.to_json())

    def read(self, stream: str, parse: Callable[[Mapping[str, Any], str], T]) -> list[T]:
        """Every record of ``stream`` as a typed record, format 1 records upgraded.

        ``parse`` is a record type's ``from_json`` (``store.read("calls", QACall.from_json)``).

        Raises:
            StoreError: a record does not validate (the message names the file and line).
        """
        name = self.stream_path(stream).name
        return [
            parse(upgrade(stream, data), f"{self.path / name} record {number}")
            for number, data in enumerate(self.iter_records(stream), start=1)
        ]

    def records(self, stream: str) -> list[JSONObject]:
        """All complete records of ``stream`` in write order (``[]`` when it does not exist).

        A last line without its newline was being written when the process died: it is skipped
        and a warning is added to :attr:`warnings`. An unreadable line before the end means the
        file was damaged by something else, and raises :class:`StoreError`.
        """
        return list(self.iter_records(stream))

    def iter_records(self, stream: str) -> Iterator[JSONObject]:
        """Like :meth:`records`, one record at a time."""
        path = self.stream_path(stream)
        if not path.exists():
            return
        data = path.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        if tail:
            message = (
                f"{path.name}: ignored an incomplete last line ({len(tail)} bytes), "
                "left by an interrupted write"
            )
            self.warnings.append(message)
            logger.warning("%s: %s", self.path, message)
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise StoreError(
                    f"{path}: line {number} is not valid JSON ({exc.msg}); the file was damaged "
                    "outside coordqa. Restore it or start a new run with another --out."
                ) from exc
            if not isinstance(record, dict):
                raise StoreError(f"{path}: line {number} is not a JSON object")
            yield record

    def _writer(self, stream: str) -> IO[bytes]:
        handle = self._writers.get(stream)
        if handle is not None:
            return handle
        self._acquire_lock()
        path = self.stream_path(stream)
        handle = open(path, "ab+")  # noqa: SIM115 - kept open across appends, closed in close()
        _cut_incomplete_tail(handle)
        self._writers[stream] = handle
        return handle

    def _acquire_lock(self) -> None:
        if self._lock is not None or fcntl is None:
            return
        handle = open(self.path / _LOCK, "ab")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreError(
                f"{self.path} is being written by another process; wait for it to finish "
                "or choose another --out"
            ) from None
        self._lock = handle

    def being_written(self) -> bool:
        """Whether another process holds the run's write lock now (it is running).

        Always False where locks are not available (Windows), and for this store's own lock.
        """
        if fcntl is None or self._lock is not None or not (self.path / _LOCK).exists():
            return False
        with open(self.path / _LOCK, "ab") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return False

    # -- whole files ------------------------------------------------------------------------

    def file(self, name: str) -> Path:
        """Path of a file inside the run directory (for derived outputs such as figures)."""
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise StoreError(f"file name {name!r} must be relative and stay inside the run")
        return self.path / name

    def write_json(self, name: str, obj: Any) -> Path:
        """Write ``obj`` as indented JSON to ``name``, atomically (temp file + rename)."""
        path = self.file(name)
        text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False, default=_json_default)
        atomic_write_bytes(path, (text + "\n").encode("utf-8"))
        return path

    def write_jsonl(self, name: str, records: Sequence[Mapping[str, Any]]) -> Path:
        """Replace a derived JSONL file (not a stream) with ``records``, atomically."""
        path = self.file(name)
        body = "".join(_dumps(dict(r), name) + "\n" for r in records)
        atomic_write_bytes(path, body.encode("utf-8"))
        return path

    def read_json(self, name: str) -> Any:
        """Read a JSON file of the run; a missing or unreadable file is a :class:`StoreError`."""
        path = self.file(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StoreError(f"{path} does not exist") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise StoreError(f"{path} cannot be read as JSON: {exc}") from exc

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close stream files and release the write lock."""
        for handle in self._writers.values():
            handle.close()
        self._writers.clear()
        self._syncs.clear()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _GroupSync:
    """Shared fsyncs of one stream file (group commit) for the appends of asyncio code.

    Lines are numbered as they are written; an fsync that starts after line ``n`` was written
    makes lines 1..n durable. A waiting append whose line an earlier fsync already covered
    returns without another one. The lock is created per event loop, since asyncio primitives
    belong to the loop they first wait on.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.written = 0
        """Lines written (and flushed) so far."""
        self.synced = 0
        """Lines made durable by a finished fsync."""
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]
        self._locks = weakref.WeakKeyDictionary()

    async def sync(self) -> None:
        """Return once every line written so far is durable."""
        import asyncio  # here, not at the top: reading runs needs no event loop

        line = self.written
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        async with lock:
            if self.synced >= line:
                return
            covered = self.written
            await asyncio.to_thread(os.fsync, self.fd)
            self.synced = max(self.synced, covered)


def _cut_incomplete_tail(handle: IO[bytes]) -> None:
    """Truncate a trailing partial line, so the next record starts on a line of its own."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return
    block = 4096
    position = size
    while position > 0:
        start = max(0, position - block)
        handle.seek(start)
        chunk = handle.read(position - start)
        if position == size and chunk.endswith(b"\n"):
            return
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            handle.truncate(start + newline + 1)
            break
        position = start
    else:
        handle.truncate(0)
    handle.flush()
    os.fsync(handle.fileno())
    handle.seek(0, os.SEEK_END)


def open_run(path: str | os.PathLike[str]) -> RunStore:
    """Open an existing run directory.

    Raises:
        StoreError: the directory or its manifest is missing, unreadable, or from a newer
            coordqa.
    """
    root = Path(path)
    manifest_path = root / MANIFEST
    if not root.is_dir():
        raise StoreError(f"run directory {root} does not exist; check the path")
    if not manifest_path.exists():
        raise StoreError(f"{root} is not a coordqa run: it has no {MANIFEST}")
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StoreError(f"{manifest_path} is corrupt ({exc}); it cannot be resumed") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise StoreError(
            f"{root} was written with run format {version}, newer than this coordqa "
            f"understands ({SCHEMA_VERSION}); upgrade coordqa (pip install -U coordqa)"
        )
    try:
        manifest = RunManifest.model_validate(data)
    except ValidationError as exc:
        raise StoreError(f"{manifest_path} is not a valid run manifest: {exc}") from exc
    return RunStore(root, manifest)


def find_runs(root: str | os.PathLike[str]) -> list[Path]:
    """Run directories under ``root`` (``root`` itself included), sorted by path.

    A run directory is one holding ``manifest.json``; runs are not searched for inside runs.
    """
    base = Path(root)
    if not base.is_dir():
        raise StoreError(f"{base} is not a directory; give the folder that holds your runs")
    found: list[Path] = []
    for folder, subfolders, files in os.walk(base):
        if MANIFEST in files:
            found.append(Path(folder))
            subfolders.clear()
        else:
            subfolders.sort()
    return sorted(found)


def discover_runs(
    paths: Sequence[str | os.PathLike[str]], kinds: Sequence[str] | None = None
) -> list[Path]:
    """The runs ``paths`` name: each run directory itself, and the runs found inside a folder.

    So ``coordqa report runs/*`` also reads the runs in a folder of runs among them, and
    ``coordqa view runs/`` shows every run in ``runs/``. A run directory given by name is kept
    whatever its kind (the command says what it can read); runs found inside a folder are kept
    when their kind is one of ``kinds`` (None: any). Each run once, in the order given.

    Raises:
        StoreError: a path does not exist, or a folder holds no run of ``kinds``.
    """
    found: list[Path] = []
    for given in map(Path, paths):
        if (given / MANIFEST).is_file():
            found.append(given)
            continue
        if not given.is_dir():
            raise StoreError(f"{given} does not exist; give run directories or folders of runs")
        inside = [(path, open_run(path).manifest.kind) for path in find_runs(given)]
        kept = [path for path, kind in inside if kinds is None or kind in kinds]
        if not kept:
            wanted = " or ".join(kinds or ()) + " " if kinds else ""
            others = sorted({kind for _, kind in inside})
            held = f" (it holds {', '.join(others)} runs)" if others else ""
            raise StoreError(f"{given} is not a run directory and holds no {wanted}runs{held}")
        found += kept
    return list(dict.fromkeys(found))


# -- run readers ------------------------------------------------------------------------------


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
    """What to do with a run of another kind (ends the error's message)."""

    def __init__(self, store: RunStore) -> None:
        """Wrap an open run of the reader's kind.

        Raises:
            StoreError: the run is of another kind.
        """
        stored = store.manifest.kind
        if stored != self.kind:
            article = "an" if self.kind[0] in "aeiou" else "a"
            raise StoreError(
                f"{store.path} is a {stored!r} run, not {article} {self.kind} one; {self.elsewhere}"
            )
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


# -- the QA run reader ------------------------------------------------------------------------

QUESTIONS = "questions"
"""Stream of the questions of a QA run (:class:`coordqa.records.Question`)."""
CALLS = "calls"
"""Stream of the model calls of a QA run (:class:`coordqa.records.QACall`)."""
SCORES_FILE = "scores.jsonl"
"""Derived file: one :class:`coordqa.records.Sample` per (question, trial)."""
SUMMARY_FILE = "summary.json"
"""Derived file: the run's accuracy tables (:meth:`coordqa.analysis.RunAnalysis.to_json`)."""


class QARun(RunReader):
    """A QA run directory, read: the one way every consumer reads QA runs.

    ``coordqa score``, ``report``, ``results``, ``compare``, ``runs list`` and the leaderboard's
    bundles all read runs through this class, so they agree on what a run holds::

        run = read_qa_run("runs/openai-gpt-4o_coordinationqa-v1.1_2c41f9a0")
        run.manifest.config["model"], run.manifest.dataset     # what was run
        run.questions()      # {question_id: Question}, in dataset order
        run.last_calls()     # {(question_id, trial): QACall}: the latest call of each key
        run.samples()        # [Sample]: scored outcomes (scores.jsonl, or scored now if stale)
        run.missing_keys()   # planned (question_id, trial) pairs without a call

    Reading never writes: a stale ``scores.jsonl`` is re-scored in memory and a warning added
    to :attr:`warnings`; ``coordqa score`` rewrites the file.
    """

    kind = "qa"
    elsewhere = (
        "only QA runs (coordqa eval) hold questions and replies to score and report "
        "(`coordqa agentic report` reports agentic runs)"
    )

    def __init__(self, store: RunStore) -> None:
        """Wrap an open QA run (use :func:`read_qa_run`)."""
        super().__init__(store)
        self._questions: dict[str, Question] | None = None
        self._calls: list[QACall] | None = None

    @property
    def model(self) -> str:
        """The model name of the run."""
        return str(self.manifest.config.get("model", "?"))

    @property
    def trials(self) -> int:
        """Trials per question the run plans."""
        trials = self.manifest.config.get("trials")
        if not isinstance(trials, int) or trials < 1:
            raise StoreError(f"{self.path}: the manifest has no valid 'trials' ({trials!r})")
        return trials

    def questions(self) -> dict[str, Question]:
        """The run's questions by id, in dataset order."""
        if self._questions is None:
            self._questions = {
                q.question_id: q for q in self.store.read(QUESTIONS, Question.from_json)
            }
        return self._questions

    def question_set(self) -> str:
        """Hash of the questions the run answers: ids, contents and answer keys.

        Two runs with the same question set answered the same questions, whatever dataset file
        or filters selected them; runs over different sets must not be compared as if they had.
        """
        keys = [[q.question_id, q.question_hash, q.target_hash] for q in self.questions().values()]
        return content_hash(sorted(keys))

    def calls(self) -> list[QACall]:
        """Every model call in write order (a retried key appears once per call)."""
        if self._calls is None:
            self._calls = self.store.read(CALLS, QACall.from_json)
        return self._calls

    def last_calls(self) -> dict[SampleKey, QACall]:
        """The latest call of each (question_id, trial): a retry supersedes a failed call."""
        return {call.key: call for call in self.calls()}

    def expected_keys(self) -> list[SampleKey]:
        """Every (question_id, trial) the run plans, in question then trial order."""
        return [(qid, trial) for qid in self.questions() for trial in range(self.trials)]

    def missing_keys(self) -> list[SampleKey]:
        """Planned keys without any call (a run stopped before asking them)."""
        called = self.last_calls()
        return [key for key in self.expected_keys() if key not in called]

    def counts(self) -> RunCounts:
        """Samples planned, answered (latest call has a reply) and failed (latest call failed)."""
        last = self.last_calls()
        failed = sum(not call.ok for call in last.values())
        return RunCounts("samples", len(self.expected_keys()), len(last) - failed, failed)

    def score(self) -> list[Sample]:
        """Score every key's latest call with today's :mod:`coordqa.scoring` (no model call).

        Raises:
            StoreError: a call refers to a question ``questions.jsonl`` does not hold.
        """
        from coordqa.scoring import score_call

        questions = self.questions()
        samples = []
        for (question_id, trial), call in sorted(self.last_calls().items()):
            question = questions.get(question_id)
            if question is None:
                raise StoreError(
                    f"{self.path}: calls.jsonl refers to question {question_id!r}, which "
                    "questions.jsonl does not hold; the run directory is incomplete"
                )
            samples.append(score_call(question, trial, call))
        return samples

    def stored_samples(self) -> list[Sample] | None:
        """The samples of ``scores.jsonl`` as written by the last score (None: never scored)."""
        path = self.store.file(SCORES_FILE)
        if not path.exists():
            return None
        return [
            Sample.from_json(data, f"{path} line {number}")
            for number, data in enumerate(_read_jsonl(path), start=1)
        ]

    def samples(self) -> list[Sample]:
        """The scored samples of the run, one per (question, trial) that has a call.

        These are the stored ``scores.jsonl`` when it covers exactly the latest calls (same keys,
        errors where the calls failed); otherwise (never scored, or calls added since: a resumed
        or killed run) every call is scored now, and a warning says so.
        """
        stored = self.stored_samples()
        calls = self.last_calls()
        if stored is not None and _covers(stored, calls):
            return stored
        if stored is not None:
            self.warnings.append(
                f"{SCORES_FILE} is older than calls.jsonl (the run went on after it was scored); "
                f"the calls were scored again in memory: run `coordqa score {self.path}` to "
                "update the file"
            )
        return self.score()

    def summary(self) -> JSONObject | None:
        """The stored ``summary.json`` (None when the run was never scored)."""
        if not self.store.file(SUMMARY_FILE).exists():
            return None
        summary = self.store.read_json(SUMMARY_FILE)
        if not isinstance(summary, dict):
            raise StoreError(f"{self.path / SUMMARY_FILE} is not a JSON object")
        return summary


def _covers(samples: Sequence[Sample], calls: Mapping[SampleKey, QACall]) -> bool:
    """Whether ``samples`` were scored from exactly ``calls`` (same keys, same failures)."""
    if len(samples) != len(calls):
        return False
    for sample in samples:
        call = calls.get(sample.key)
        if call is None or (sample.status == "error") != (not call.ok):
            return False
    return True


def _read_jsonl(path: Path) -> Iterator[JSONObject]:
    """The JSON objects of a derived JSONL file (written atomically, so every line is whole)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StoreError(f"{path}: line {number} is not valid JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise StoreError(f"{path}: line {number} is not a JSON object")
        yield data


read_qa_run = QARun.read
"""Open a QA run directory (or wrap an open store) for reading; see :class:`QARun`."""
