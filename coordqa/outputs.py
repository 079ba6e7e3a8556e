"""Where coordqa may write: an output folder or file, checked before anything is written.

An output path that already exists as the other kind (a file where a folder is written, a
folder where a file is), that lies under a file, or whose folder this user cannot write to
would otherwise fail halfway through a command with the operating system's traceback, after
the work it was to hold was done. Every writer of the package creates its output through
:func:`make_output_folder` or :func:`make_output_file`, and the command line checks its output
options with the same rules (:func:`check_output_folder`, :func:`check_output_file`) when it
parses them, before any work; each raises :class:`~coordqa.errors.OutputPathError`, which says
what is in the way and what to do.

A folder a command writes one run or one eval set into is written only when it is missing,
empty (but for hidden files: a ``.gitkeep``) or already that run or set, to resume
(:func:`check_run_output`): never a folder holding runs, nor one holding the user's files.

A folder of generated output (a report, an export of pages, the board's static site) is
written only when it is missing, empty or holds the earlier output of the same command
(:func:`generated_output`): that command leaves ``.coordqa-output.json`` naming itself and the
files it wrote, writes its new output beside the folder and, once it is complete, replaces
those files by it (so nothing of the earlier output survives, and a command stopped halfway
leaves the earlier output whole), and keeps any file a user added. Two commands never share a
folder, and a folder coordqa did not fill is never written into. An output file that exists is
refused, never replaced.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from coordqa.bounded_reads import read_at_most
from coordqa.errors import OutputPathError, RunInterrupted
from coordqa.jsonvalues import load_json
from coordqa.runfolder import folder_words, holds_run, runs_held
from coordqa.stops import ctrl_c_ignored, sigterm_as_ctrl_c

__all__ = [
    "AGENTIC_REPORT",
    "BOARD_SITE",
    "OUTPUT_MARKER",
    "QA_REPORT",
    "RUN_PAGES",
    "check_folder_of_kind",
    "check_generated_folder",
    "check_output_file",
    "check_output_folder",
    "check_run_output",
    "generated_output",
    "in_output",
    "make_output_file",
    "nothing_written",
    "make_output_folder",
    "unused_file_beside",
]

FOLDER = "the output folder"
"""How a library writer names its output folder in an error (the CLI names its option)."""
FILE = "the output file"
"""How a library writer names its output file in an error."""

QA_REPORT = "coordqa report"
AGENTIC_REPORT = "coordqa agentic report"
RUN_PAGES = "coordqa view --export"
BOARD_SITE = "coordqa leaderboard export"
WRITERS = frozenset({QA_REPORT, AGENTIC_REPORT, RUN_PAGES, BOARD_SITE})
"""The writers of generated output folders, as their marker names them (and an error quotes)."""

OUTPUT_MARKER = ".coordqa-output.json"
"""The file a generated output folder's writer leaves: ``{"command": ..., "files": [...]}``."""
MAX_MARKER_BYTES = 16 * 1024 * 1024
"""The most of a marker that is read: room for ~300,000 file names (a large ``view --export``);
a bigger one is not coordqa's and its folder is refused."""
EMPTY_IT = "give a new folder, or empty it"


def check_output_folder(path: str | os.PathLike[str], name: str = FOLDER) -> Path:
    """``path`` as a folder to write into (kept or created); raise if it cannot be one.

    Args:
        path: the folder; it may exist (its files are kept) or not (it and its parents are
            created by the writer).
        name: what the path is to the user, for the message (``--out``, ``the output folder``).

    Raises:
        OutputPathError: ``path`` is a file, lies under a file, or is in a folder that is not
            writable.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(
            f"{name} {folder} is a file, not a folder: give another path, or remove the file"
        )
    _check_writable(folder, name)
    return folder


MOST_FILE_TRIES = 100
"""How many numbered names :func:`unused_file_beside` tries before it gives up."""


def unused_file_beside(path: Path, words: list[str]) -> Path | None:
    """A file beside ``path`` that does not exist yet, named for ``words``: one to advise.

    An advice that writes a file must name one :func:`check_output_file` accepts, or the
    command it gives fails (walkthrough 16 #123-#125): ``lb/bundle.json`` and ``["Other"]`` give
    ``lb/bundle-Other.json``, then ``lb/bundle-Other-2.json``. Only letters, digits, ``.`` and
    ``_`` of ``words`` are kept (each run of other characters is one ``-``), so the name needs
    no quoting and names no other folder. None when the first :data:`MOST_FILE_TRIES` names
    are all taken.
    """
    kept = re.sub(r"[^A-Za-z0-9._]+", "-", "-".join(words)).strip(".-")[:60] or "new"
    stem = f"{path.stem}-{kept}"
    for number in range(1, MOST_FILE_TRIES + 1):
        candidate = path.with_name(f"{stem}{'' if number == 1 else f'-{number}'}{path.suffix}")
        if not os.path.lexists(candidate):
            return candidate
    return None


def _free_file_in(folder: Path, example: str) -> Path:
    """A file in ``folder`` that does not exist yet, named ``example`` if that one is free.

    What a refusal of a folder given for a file offers instead: a name the command then takes
    (``runs/bundle.json``, else ``runs/bundle-new.json``, ...; ``runs/NAME`` when all are
    taken).
    """
    wanted = folder / example
    if not os.path.lexists(wanted):
        return wanted
    return unused_file_beside(wanted, ["new"]) or folder / "NAME"


def check_output_file(
    path: str | os.PathLike[str], name: str = FILE, example: str = "output"
) -> Path:
    """``path`` as a new file to write; raise if it cannot be one.

    An existing file is refused rather than replaced: a bundle or table written earlier is
    never lost to a reused name. A folder is refused with a new file in it to give instead
    (named like ``example``), never with the advice to remove it: a folder given for a file
    is most often one of the user's own, full of runs (walkthrough 18 #296).

    Raises:
        OutputPathError: ``path`` exists, is a folder, lies under a file, or cannot be written.
    """
    file = Path(path)
    if file.is_dir():
        raise OutputPathError(
            f"{name} {file} is a folder, not a file: give the path of a new file, e.g. "
            f"{_free_file_in(file, example)}"
        )
    if os.path.lexists(file):
        raise OutputPathError(f"{name} {file} exists: give a new file name, or remove it first")
    _check_writable(file, name)
    return file


def make_output_folder(path: str | os.PathLike[str], name: str = FOLDER) -> Path:
    """Check ``path`` (:func:`check_output_folder`), then create it and its parents."""
    folder = check_output_folder(path, name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_output_file(
    path: str | os.PathLike[str], name: str = FILE, example: str = "output"
) -> Path:
    """Check ``path`` (:func:`check_output_file`), then create the folders it is to be in.

    The file itself is the caller's to write.
    """
    file = check_output_file(path, name, example)
    file.parent.mkdir(parents=True, exist_ok=True)
    return file


def check_generated_folder(path: str | os.PathLike[str], writer: str, name: str = FOLDER) -> Path:
    """``path`` as the output folder of ``writer``; raise unless it may be written.

    It may when :func:`check_output_folder` allows it and it is missing, empty or holds the
    earlier output of ``writer`` (its marker names ``writer`` and only plain files inside it).

    Args:
        path: the folder.
        writer: the command that is to write it (:data:`QA_REPORT`, ...).
        name: what the path is to the user, for the message.

    Raises:
        OutputPathError: the folder holds another command's output, files without a marker,
            or a marker coordqa cannot trust.
    """
    folder = check_output_folder(path, name)
    _earlier_output(folder, writer, name)
    return folder


def check_folder_of_kind(
    path: str | os.PathLike[str], signature: str, kind: str, name: str = FOLDER
) -> Path:
    """``path`` as a folder for one ``kind`` of thing; raise unless it is missing, empty or one.

    A dataset folder is meant to be shared as it is (a Hugging Face dataset repository), so it
    carries no marker of its own: the file every folder of its kind holds (``signature``, a
    dataset's ``data.parquet``) says what it is. Whether an existing one may be replaced is the
    writer's rule (``--overwrite``).

    Raises:
        OutputPathError: the folder holds files and no ``signature`` (a run's or a set's folder
            is named as one, and another command's output by that command).
    """
    folder = check_output_folder(path, name)
    if folder.is_dir() and not (folder / signature).exists():
        held = folder_words(folder)
        if held is not None:
            raise OutputPathError(
                f"{name} {folder} is {held}, not a {kind}: give a new folder for the {kind}"
            )
        entries = sorted(entry.name for entry in folder.iterdir())
        if entries:
            raise _not_for_this_writer(folder, entries, name, f"files that are not a {kind}")
    return folder


def check_run_output(path: str | os.PathLike[str], what: str = "run", name: str = FOLDER) -> Path:
    """``path`` as the folder of one run (``what``: or ``eval set``); raise unless it may be.

    It may be missing, empty, or a run's or a set's folder: the writer resumes that after its
    own checks (the run's identity, :meth:`~coordqa.store.RunStore.open_or_create`; a set's
    folder refused for a run and a run's for a set). Hidden files do not count (a ``.gitkeep``,
    a run's ``.lock`` left before its manifest was written). A folder of runs would get the
    run's files beside them, and listings would then show the one run and hide the others; a
    folder of the user's files would get coordqa's among them.

    Raises:
        OutputPathError: the folder holds runs or eval sets, another command's output (a
            report: its trusted marker, :func:`_read_marker`, names the command), or files
            coordqa did not write; what to give instead.
    """
    folder = check_output_folder(path, name)
    if not folder.is_dir() or folder_words(folder) is not None:
        return folder
    entries = sorted(e.name for e in folder.iterdir() if not e.name.startswith("."))
    held = runs_held(folder, entries)
    if held:
        raise OutputPathError(
            f"{name} {folder} holds {held}: give a folder for this {what}, e.g. "
            f"{name} {folder / 'NAME'}"
        )
    if entries:
        raise _not_for_this_writer(folder, entries, name, "files coordqa did not write")
    return folder


def _not_for_this_writer(
    folder: Path, entries: list[str], name: str, files: str
) -> OutputPathError:
    """The error for a folder whose ``entries`` this writer may not write among.

    Another command's generated output (its trusted marker, :func:`_read_marker`) is named by
    that command, as every writer names it (not as its marker file, walkthrough 10, #86); any
    other entries are ``files`` (``files coordqa did not write``), one of them shown.
    """
    marker = _read_marker(folder)
    if marker is not None:
        return _holds_output_of(folder, marker[0], name)
    return OutputPathError(f"{name} {folder} holds {files} (e.g. {_shown(entries[0])}): {EMPTY_IT}")


def _holds_output_of(folder: Path, command: str, name: str) -> OutputPathError:
    """The error for a folder holding ``command``'s generated output, where it may not go."""
    return OutputPathError(f"{name} {folder} holds the output of `{command}`: {EMPTY_IT}")


@contextmanager
def generated_output(
    path: str | os.PathLike[str], writer: str, name: str = FOLDER
) -> Iterator[Path]:
    """A staging folder ``writer`` writes its output into; on success, moved into ``path``.

    Checks the folder (:func:`check_generated_folder`), then yields an empty staging folder
    beside it (:func:`_staging_beside`): a writer's files are moved into ``path`` only once it
    finishes, after the files the earlier output's marker lists (and the folders that leaves
    empty) are removed; then the marker lists the new files. The user's own files are kept. A
    writer that fails or is interrupted (Ctrl-C or SIGTERM, walkthroughs 23 and 26a) leaves
    ``path`` as it was: the complete earlier output, never an index linking to pages never
    written; either stop is :class:`~coordqa.errors.RunInterrupted`, one line saying so. The
    writer must name ``path``, not the staging folder, in what it returns or writes
    (:func:`in_output`).
    """
    folder = check_output_folder(path, name)
    earlier = _earlier_output(folder, writer, name)
    staging = _staging_beside(folder)
    try:
        with sigterm_as_ctrl_c():  # a `timeout` or `kill` too: no staging folder left behind
            yield staging
            with ctrl_c_ignored():
                _move_in(staging, folder, earlier, writer)
    except KeyboardInterrupt:
        raise RunInterrupted(nothing_written(folder)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def nothing_written(path: str | os.PathLike[str]) -> str:
    """``interrupted: nothing was written to PATH``, and that an earlier output there is kept.

    The one line of a command stopped before its output replaced anything: while it writes
    (:func:`generated_output`) or while it still reads what it writes about (walkthrough 26).
    """
    folder = Path(path)
    marker = _read_marker(folder) if (folder / OUTPUT_MARKER).is_file() else None
    kept = f"; the earlier {_called(marker[0])} there is kept" if marker else ""
    return f"interrupted: nothing was written to {folder}{kept}"


def in_output(paths: list[Path], staging: Path, path: str | os.PathLike[str]) -> list[Path]:
    """``paths`` written into ``staging`` (:func:`generated_output`), as they are in ``path``."""
    return [Path(path) / written.relative_to(staging) for written in paths]


STAGING = ".coordqa-partial-"
"""How a staging folder is named: ``.NAME.coordqa-partial-PID`` beside the output folder."""


def _staging_beside(folder: Path) -> Path:
    """A new hidden folder beside ``folder`` (on its file system) to write its output into.

    Beside it, so that an output published as it is (a static site) never carries it; the
    folder's parents are created for it. Inside it (hidden) when only the folder is writable,
    or it is a mount point (the files are moved in by renaming).
    """
    whole = folder.resolve()  # beside the folder a link names, not beside the link
    whole.parent.mkdir(parents=True, exist_ok=True)
    staging = whole.parent / f".{whole.name}{STAGING}{os.getpid()}"
    if whole.is_dir() and (
        not os.access(whole.parent, os.W_OK | os.X_OK)  # a writable folder in one that is not
        or whole.stat().st_dev != whole.parent.stat().st_dev  # a mount point: no os.replace
    ):
        staging = whole / f"{STAGING}{os.getpid()}"
    _remove_abandoned(staging.parent, f".{whole.name}{STAGING}")
    shutil.rmtree(staging, ignore_errors=True)  # one this process left: a pid is not reused live
    staging.mkdir()
    return staging


def _remove_abandoned(folder: Path, prefix: str) -> None:
    """Remove the staging folders ``prefix``PID in ``folder`` whose process is gone.

    A writer killed outright (SIGKILL, a power cut) runs no ``finally`` and leaves its staging
    folder; the next writer of the same output removes it. A live writer's is kept.
    """
    for left in folder.glob(f"{glob.escape(prefix)}*"):
        pid = left.name.removeprefix(prefix)
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            shutil.rmtree(left, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user's counts: it may be writing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _move_in(staging: Path, folder: Path, earlier: list[str], writer: str) -> None:
    """Replace ``folder``'s ``earlier`` output by the files written in ``staging``."""
    written = sorted(_files_under(staging))
    _remove_earlier(folder, earlier)
    folder.mkdir(parents=True, exist_ok=True)
    for name in written:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / name, folder / name)
    marker = {"command": writer, "files": written}
    (folder / OUTPUT_MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")


def _called(writer: str) -> str:
    """What ``writer``'s output is called in a line: a report, or an export."""
    return "report" if writer in (QA_REPORT, AGENTIC_REPORT) else "export"


def _earlier_output(folder: Path, writer: str, name: str) -> list[str]:
    """The files of ``writer``'s earlier output in ``folder`` (none when it is missing or empty).

    A run directory, or a folder of them, is named as one (the store's test,
    :func:`~coordqa.runfolder.holds_run`): its files are coordqa's, and emptying it would lose
    the runs.

    Raises:
        OutputPathError: the folder holds anything else.
    """
    if not folder.is_dir():
        return []
    entries = sorted(entry.name for entry in folder.iterdir())
    if not entries:
        return []
    if holds_run(folder):
        raise OutputPathError(
            f"{name} {folder} is a run directory: give a new folder for the output"
        )
    runs = [e for e in entries if _is_folder(folder / e) and holds_run(folder / e)]
    if runs and OUTPUT_MARKER not in entries:
        raise OutputPathError(
            f"{name} {folder} holds run directories (e.g. {_shown(runs[0])}): give a new folder"
        )
    if OUTPUT_MARKER not in entries:
        raise OutputPathError(
            f"{name} {folder} holds files coordqa did not write (e.g. {_shown(entries[0])}): "
            f"{EMPTY_IT}"
        )
    marker = _read_marker(folder)
    if marker is None:
        raise OutputPathError(
            f"{name} {folder} holds a {OUTPUT_MARKER} that coordqa did not write: {EMPTY_IT}"
        )
    command, files = marker
    if command != writer:
        raise _holds_output_of(folder, command, name)
    return files


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself, not a link to one (never followed)."""
    return path.is_dir() and not path.is_symlink()


def _read_marker(folder: Path) -> tuple[str, list[str]] | None:
    """The command and files a marker names, or ``None`` when it is not one coordqa wrote.

    The marker is hostile input: it is read only as a plain file (no symlink), up to
    :data:`MAX_MARKER_BYTES`, with bounded nesting; it must name a known writer and only plain
    relative names of regular files (or missing ones) reached through no symlink.
    """
    try:
        marker = load_json(
            read_at_most(folder / OUTPUT_MARKER, MAX_MARKER_BYTES, follow_link=False)
        )
    except (OSError, ValueError):  # no plain file; too large, not JSON or UTF-8, too deep
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("command"), str):
        return None
    if marker["command"] not in WRITERS:
        return None
    files = marker.get("files")
    if not isinstance(files, list) or not all(_is_ours(folder, name) for name in files):
        return None
    return marker["command"], files


def _is_ours(folder: Path, name: object) -> bool:
    """Whether ``name`` is a plain relative path to a regular file (or nothing) in ``folder``."""
    if not isinstance(name, str) or "\0" in name or not name:
        return False
    relative = PurePosixPath(name)
    if relative.is_absolute() or str(relative) != name or ".." in relative.parts:
        return False
    if name == OUTPUT_MARKER:
        return False
    path = folder
    for part in relative.parts[:-1]:
        path = path / part
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            return False
    path = path / relative.parts[-1]
    return not path.is_symlink() and (not path.exists() or path.is_file())


def _remove_earlier(folder: Path, files: list[str]) -> None:
    """Remove the listed files of ``folder`` (checked by :func:`_is_ours`), then emptied folders."""
    emptied: set[Path] = set()
    for name in files:
        path = folder / name
        if _is_ours(folder, name) and path.is_file():  # checked again as it is removed
            path.unlink()
        emptied.update(p for p in path.parents if p != folder and folder in p.parents)
    for path in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()


def _files_under(folder: Path) -> set[str]:
    """The relative names of every file under ``folder``, not following symlinks."""
    found = set()
    for top, _dirs, files in os.walk(folder):
        for file in files:
            found.add((Path(top) / file).relative_to(folder).as_posix())
    return found


def _shown(entry: str) -> str:
    """A file name as an error line may show it (one line, printable)."""
    return entry if entry.isprintable() else ascii(entry)


def _check_writable(path: Path, name: str) -> None:
    """Raise unless ``path`` can be written.

    An existing path must be writable itself; a missing one's nearest existing parent (where
    the missing folders are created) must be a folder this user may write in.
    """
    if path.exists():
        if not os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0)):
            raise OutputPathError(
                f"{name} {path} is not writable (permission denied): give a path you can "
                "write to, or change its permissions"
            )
        return
    ancestor = _nearest_existing(path)
    if not ancestor.is_dir():
        raise OutputPathError(
            f"{name} {path} is under {ancestor}, which is a file, not a folder: give another path"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputPathError(
            f"{name} {path} cannot be created: the folder {ancestor} is not writable "
            "(permission denied); give a path in a folder you can write to"
        )


def _nearest_existing(path: Path) -> Path:
    """The nearest of ``path``'s parents that exists (the working directory at the latest)."""
    for parent in path.parents:
        if parent.exists():
            return parent
    return Path.cwd()  # pragma: no cover - a relative path's last parent is "."
