"""A run directory opened for reading and appending: :class:`RunStore` and :func:`open_run`.

Streams are append-only JSONL files: every record is written as soon as it exists, flushed and
fsynced, so a killed process loses at most the line it was writing. A record counts as written
when its newline is on disk: a truncated last line is ignored on read (and counted in
:attr:`RunStore.warnings`) and cut off before the next append, never repaired into something
that was not written. Derived files are rewritten atomically.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from coordqa.bounded_reads import read_at_most
from coordqa.errors import CoordqaError, StoreError
from coordqa.files import atomic_write_bytes
from coordqa.jsonvalues import JSONObject, load_json
from coordqa.outputs import check_run_output, make_output_folder
from coordqa.records import Record, upgrade
from coordqa.runfolder import (
    SET_MANIFEST,
    STREAM_NAME,
    folder_words,
    holds_set,
    resume_set_words,
    run_records,
)
from coordqa.schema_problems import schema_problems
from coordqa.store.manifest import MANIFEST, SCHEMA_VERSION, RunManifest, kind_words, utc_now
from coordqa.words import capitalised, with_article

if TYPE_CHECKING:
    import asyncio

try:  # POSIX only; elsewhere two writers on one run are not detected
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

_LOCK = ".lock"
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""The longest line of a stream read: a record holds replies cut at ``MAX_REPLY_CHARS`` (32k
characters) and its prompt, far below this; a longer line is damage, not read to its end."""

T = TypeVar("T")


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
        """Create a new run at ``path`` (which must not hold a run yet, nor other files)."""
        root = check_run_output(path)
        refuse_set_folder(root)
        if (root / MANIFEST).exists():
            raise StoreError(
                f"{root} already holds a run; open it with open_run(), or choose another --out"
            )
        orphaned = _without_manifest(root)
        if orphaned is not None:
            raise orphaned.for_writing()
        make_output_folder(root)
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
        store = open_to_write(root)
        store._acquire_lock()
        try:
            check_resumable(root, store.manifest, manifest)
        except StoreError:
            store.close()
            raise
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
            problems = schema_problems(exc, "manifest", shown=3)
            raise StoreError(f"invalid manifest update {sorted(changes)}: {problems}") from exc
        self.write_json(MANIFEST, self.manifest.model_dump(mode="json"))
        return self.manifest

    def mark_started(self) -> None:
        """Record the start of a session (first run or resume)."""
        self.update_manifest(
            started_at=utc_now(),
            finished_at=None,
            status="running",
            sessions=self.manifest.sessions + 1,
        )

    def mark_finished(self) -> None:
        """Record that the run completed all its work."""
        self.update_manifest(finished_at=utc_now(), status="finished")

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
        if not STREAM_NAME.match(stream):
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
        with path.open("rb") as file:
            lines = self._complete_lines(path, file, STREAMS_FIX)
            yield from _json_objects(path, lines, STREAMS_FIX)

    def record_lines(self, stream: str) -> Iterator[tuple[int, int, bytes]]:
        """Each record line of ``stream``, unparsed, with its byte offset and line number.

        For an index of a large stream (the viewer's, of ``exchanges.jsonl`` by episode): the
        lines are read as :meth:`records` reads them (bounded, a torn last line left out), and
        :meth:`read_lines` parses only those chosen. Blank lines are left out.
        """
        path = self.stream_path(stream)
        if not path.exists():
            return
        with path.open("rb") as file:
            offset = 0
            lines = self._complete_lines(path, file, STREAMS_FIX)
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    yield offset, number, line
                offset += len(line)

    def read_lines(
        self,
        stream: str,
        lines: Iterable[tuple[int, int]],
        parse: Callable[[Mapping[str, Any], str], T],
    ) -> list[T]:
        """The records of ``stream`` on ``lines``, typed as :meth:`read` types them.

        ``lines``: (byte offset, line number) pairs as :meth:`record_lines` gave them; the
        records come in their order.

        Raises:
            StoreError: a line is no longer a whole JSON object there (the file was replaced
                since it was indexed), or a record does not validate.
        """
        path, places = self.stream_path(stream), list(lines)
        records: list[T] = []
        if not places:  # a stream never written (a run of partners alone has no exchanges)
            return records
        with path.open("rb") as file:
            for offset, number in places:
                file.seek(offset)
                line = file.readline(MAX_RECORD_BYTES + 1)
                if not line.endswith(b"\n"):
                    raise DamagedRecordsError(
                        f"{path}: line {number} is no longer where it was; the file was "
                        "replaced while it was read",
                        STREAMS_FIX,
                    )
                data = _json_object(path, number, line, STREAMS_FIX)
                records.append(parse(upgrade(stream, data), f"{path} line {number}"))
        return records

    def _complete_lines(self, path: Path, file: IO[bytes], fix: str) -> Iterator[bytes]:
        """Each newline-ended line of ``file``, read no further than :data:`MAX_RECORD_BYTES`.

        A last line without its newline was being written when the process died: it is left
        out, with a warning. A line longer than the bound is damage (a folder may be handed
        with a stream that is a link to ``/dev/zero``): it is never read to its end.
        """
        number = 0
        while line := file.readline(MAX_RECORD_BYTES + 1):
            number += 1
            if line.endswith(b"\n"):
                yield line
            elif len(line) > MAX_RECORD_BYTES:
                raise DamagedRecordsError(
                    f"{path}: line {number} is longer than {MAX_RECORD_BYTES:,} bytes, more than "
                    "any record coordqa writes; the file was damaged outside coordqa",
                    fix,
                )
            else:
                message = (
                    f"{path.name}: ignored an incomplete last line ({len(line)} bytes), "
                    "left by an interrupted write"
                )
                if message not in self.warnings:  # a run read several times says it once
                    self.warnings.append(message)
                    logger.warning("%s: %s", self.path, message)

    def check_records(self) -> None:
        """Read every stream of the run through, so a damaged one is found before it is used.

        A report of a folder of runs checks each run it found so that one damaged run is
        skipped with its cause instead of stopping the report of the others.

        Raises:
            StoreError: a line of a stream is not a JSON object (:meth:`records`).
        """
        for file in sorted(self.path.glob("*.jsonl")):
            if STREAM_NAME.match(file.stem):
                for _ in self.iter_records(file.stem):
                    pass

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

    def read_jsonl(self, name: str) -> list[JSONObject]:
        """The records of a derived JSONL file (written whole by :meth:`write_jsonl`).

        Raises:
            StoreError: the file is missing, or a line is not a JSON object.
        """
        path = self.file(name)
        fix = "Derived files are rebuilt from the streams (coordqa score, for a QA run)."
        try:
            with path.open("rb") as file:
                return list(_json_objects(path, self._complete_lines(path, file, fix), fix))
        except FileNotFoundError:
            raise StoreError(f"{path} does not exist") from None

    def read_json(self, name: str) -> Any:
        """Read a JSON file of the run; a missing or unreadable file is a :class:`StoreError`."""
        path = self.file(name)
        try:
            return load_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StoreError(f"{path} does not exist") from None
        except (OSError, ValueError) as exc:  # ValueError: not JSON, not UTF-8, nested too deep
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


def _json_objects(path: Path, lines: Iterable[bytes], fix: str) -> Iterator[JSONObject]:
    """The JSON object of each line of ``path`` (blank lines skipped).

    Raises:
        StoreError: a line is not a JSON object; the message names the file and line, then
            ``fix``.
    """
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield _json_object(path, number, line, fix)


def _json_object(path: Path, number: int, line: bytes, fix: str) -> JSONObject:
    """The JSON object of line ``number`` of ``path``; see :func:`_json_objects`."""
    try:
        record = load_json(line)
    except ValueError as exc:  # not JSON, not UTF-8, or nested too deep
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        problem = f"{path}: line {number} is not valid JSON ({why}); the file was damaged"
        raise DamagedRecordsError(f"{problem} outside coordqa", fix) from exc
    if not isinstance(record, dict):
        raise DamagedRecordsError(f"{path}: line {number} is not a JSON object", fix)
    return record


class DamagedRecordsError(StoreError):
    """A line of a run's records is not a JSON object: what is damaged, apart from the fix.

    Kept apart so a command that names the run (:meth:`UnreadableRunError.of_records`) gives
    its own fix once, not this one beside it.
    """

    def __init__(self, problem: str, fix: str) -> None:
        """Say which file and line is damaged (``problem``) and how to recover (``fix``)."""
        self.problem = problem
        super().__init__(f"{problem}. {fix}")


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


class UnreadableRunError(StoreError):
    """A folder that holds a run coordqa cannot read: what is wrong, and what to do.

    Worded for every command that meets it (resuming, listing, viewing): a listing shows the
    two parts beside the folder, any other command stops with :attr:`message`.
    """

    def __init__(self, path: Path, problem: str, fix: str) -> None:
        """Say what is wrong with the run at ``path`` and how to recover."""
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{path}: {problem}. {capitalised(fix)}.")

    @classmethod
    def of_records(cls, path: Path, error: StoreError) -> UnreadableRunError:
        """A run at ``path`` whose manifest opens but whose records do not (``error``)."""
        cause = error.problem if isinstance(error, DamagedRecordsError) else str(error)
        return cls(path, f"its records cannot be read ({cause})", STREAMS_DAMAGED)

    def for_writing(self) -> UnreadableRunError:
        """This error as a command that writes a run into the folder says it: or another --out.

        Reading commands (``score``, ``runs list``, ``view``) can only use the run recovered;
        a writer can also start its run elsewhere.
        """
        return UnreadableRunError(self.path, self.problem, f"{self.fix}, {NEW_RUN_ELSEWHERE}")


RESTORE_MANIFEST = (
    "restore manifest.json from where the run was copied (coordqa never adopts records it "
    "cannot attribute to a run)"
)
"""How to recover a run folder whose manifest is missing, corrupt or invalid."""
NEW_RUN_ELSEWHERE = "or give another --out for a new run"
"""What a command that writes a run may do instead of recovering the one in its folder."""
STREAMS_DAMAGED = (
    "restore the damaged file from a copy of the run, or move the folder out of the way"
)
"""How to recover a run whose manifest opens but whose records do not."""
STREAMS_FIX = f"{capitalised(STREAMS_DAMAGED)}."
"""The same, as the sentence that ends a damaged stream's message."""


def _a_set_not_a_run(root: Path) -> StoreError:
    """The refusal of an eval set's folder given where one run is read: its members are runs.

    A set's folder holds no manifest of its own but each member's run folder beside its
    ``eval-set.json``; ``runs list`` lists them. (``report`` and ``view`` take a set's folder.)
    The commands that say it take one run, so the refusal names one member's actual folder to
    give (a ``{root}/*/`` pattern would expand to several arguments, refused by the command).
    """
    members = _member_runs(root)
    example = f"e.g. {members[0]}" if members else "none is stored yet"
    return StoreError(
        f"{root} is an eval-set folder ({SET_MANIFEST}), not a run directory; give one member's "
        f"run directory at a time, {example} (coordqa runs list {root} lists them)"
    )


MOST_SET_ENTRIES_LOOKED_AT = 1000
"""How many entries of an eval set's folder are looked at for a member to name: a set holds one
folder per model, and a hostile folder of millions is not walked to word an error."""


def _member_runs(root: Path) -> list[Path]:
    """The run folders in an eval set's folder (among its first entries), in name order."""
    entries = itertools.islice(root.iterdir(), MOST_SET_ENTRIES_LOOKED_AT)
    return sorted(entry for entry in entries if (entry / MANIFEST).is_file())


def _without_manifest(root: Path) -> UnreadableRunError | None:
    """The refusal of a folder holding run records but no manifest (None: it holds none).

    Its records belong to a run whose identity (model, parameters, questions) went with the
    manifest: adopting them would report another model's answers as the new run's.
    """
    held = run_records(root)
    if not held:
        return None
    return UnreadableRunError(
        root,
        f"it holds {', '.join(held)} but no {MANIFEST}, so which run they belong to is unknown",
        RESTORE_MANIFEST,
    )


def another_kind(path: Path, stored: str, kind: str, fix: str) -> StoreError:
    """The error of a run of kind ``stored`` at ``path`` met where one of ``kind`` is wanted.

    One wording for reading (a reader of another kind, :class:`~coordqa.store.RunReader`)
    and writing (:func:`check_kind`); ``fix`` says what to do for the command that met it.
    """
    return StoreError(
        f"{path} is {with_article(kind_words(stored))} run, not "
        f"{with_article(kind_words(kind))} one; {fix}"
    )


WRITE_ELSEWHERE = "a folder holds one run: give another --out for this one"
"""What a command that writes a run does with a folder holding a run of another kind."""


def check_kind(root: Path, stored: RunManifest, kind: str) -> None:
    """Refuse to write a run of ``kind`` into the folder ``root`` holding ``stored``, another kind.

    Said before anything else about that run (its settings, its count): the folder is not this
    command's, whatever it holds.

    Raises:
        StoreError: what the folder holds, and to give another --out.
    """
    if stored.kind != kind:
        raise another_kind(root, stored.kind, kind, WRITE_ELSEWHERE)


def refuse_set_folder(root: Path) -> None:
    """Refuse to write a run into an eval set's folder.

    Checked as the command line is read and again as the run is created. A run there would sit
    beside the set's members, and listings would show it and hide them.

    Raises:
        StoreError: the folder is a set's, and what to do instead.
    """
    if holds_set(root):
        raise StoreError(
            f"{root} is an eval-set folder ({SET_MANIFEST}): give another --out; "
            f"{resume_set_words(root)}"
        )


def run_folder_words(root: Path) -> str:
    """``a QA run folder (manifest.json)``: what a folder holding a run is, for a refusal.

    A folder whose manifest cannot be read is still a run's (:func:`holds_run`): ``a run
    folder``.
    """
    try:
        kind = open_run(root).manifest.kind
    except CoordqaError:
        return "a run folder"
    return f"{with_article(kind_words(kind))} run folder ({MANIFEST})"


def check_resumable(root: Path, stored: RunManifest, asked: RunManifest) -> None:
    """Refuse to resume the run ``stored`` at ``root`` as ``asked`` unless they are one run.

    Also said before a run opens its folder (``coordqa agentic run`` checks before it draws
    its progress bar), in the words :meth:`RunStore.open_or_create` uses.

    Raises:
        StoreError: the run's other test (:meth:`RunManifest.another_test`), or else the
            differences (:meth:`RunManifest.mismatches`), and the fix.
    """
    check_kind(root, stored, asked.kind)
    test = stored.another_test(asked)
    if test is not None:
        noun, words = test
        raise StoreError(
            f"{root} holds a run {words}; give another --out, or the {noun} it was made from "
            "to resume it"
        )
    problems = stored.mismatches(asked)
    if problems:
        raise StoreError(
            f"{root} holds a run with a different configuration ("
            + "; ".join(problems)
            + "). Use another --out directory, or the same options as that run to resume it."
        )


def open_to_write(path: str | os.PathLike[str]) -> RunStore:
    """:func:`open_run` for a command that writes (resumes) the run.

    An unreadable run's fix also offers another --out (:meth:`UnreadableRunError.for_writing`).

    Raises:
        StoreError, UnreadableRunError: as :func:`open_run`.
    """
    try:
        return open_run(path)
    except UnreadableRunError as exc:
        raise exc.for_writing() from exc


def check_run_path(path: str | os.PathLike[str], wanted: str) -> Path:
    """``path`` as a folder to read runs from; raise if it names none.

    The one rule of every command that reads runs (one run, runs, or a folder of them): a
    missing path does not exist; an existing file is a file, and when the folder holding it
    is a run's or an eval set's (its ``manifest.json``, a stream) that folder is named, so the
    fix is one copy away. ``wanted`` says what the command takes (``a run directory``).

    Raises:
        StoreError: ``path`` is missing or is not a folder, with what to give instead.
    """
    given = Path(path)
    if given.is_dir():
        return given
    if not os.path.lexists(given):
        from coordqa.given_paths import missing_path

        raise StoreError(f"{missing_path(given)} Give {wanted}")
    holder = folder_words(given.parent)
    fix = f"the folder that holds it: {given.parent} ({holder})" if holder else wanted
    what = "a file, not a folder" if given.is_file() else "not a folder"  # a link to nothing
    raise StoreError(f"{given} is {what}; give {fix}")


def open_run(path: str | os.PathLike[str]) -> RunStore:
    """Open an existing run directory.

    Raises:
        StoreError: the path is not a folder (:func:`check_run_path`).
        UnreadableRunError: its manifest is missing, unreadable, or from a newer coordqa (the
            error says what is wrong and what to do).
    """
    root = check_run_path(path, "a run directory")
    manifest_path = root / MANIFEST
    if not manifest_path.exists() and holds_set(root):
        raise _a_set_not_a_run(root)
    if not manifest_path.exists():
        raise _without_manifest(root) or UnreadableRunError(
            root,
            f"it is not a coordqa run: it has no {MANIFEST}",
            "give a run directory (a folder holding manifest.json)",
        )
    try:
        data = load_json(read_at_most(manifest_path))
    except (OSError, ValueError) as exc:  # ValueError: too large, not JSON or UTF-8, too deep
        raise UnreadableRunError(root, f"{MANIFEST} is corrupt ({exc})", RESTORE_MANIFEST) from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise UnreadableRunError(
            root,
            f"it was written with run format {version}, newer than this coordqa understands "
            f"({SCHEMA_VERSION})",
            "upgrade coordqa (pip install -U coordqa)",
        )
    try:
        manifest = RunManifest.model_validate(data)
    except ValidationError as exc:
        problems = schema_problems(exc, "manifest", shown=3)
        raise UnreadableRunError(
            root, f"{MANIFEST} is not a valid run manifest ({problems})", RESTORE_MANIFEST
        ) from exc
    return RunStore(root, manifest)
