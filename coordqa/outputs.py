"""Where coordqa may write: an output folder or file, checked before anything is written.

An output path that already exists as the other kind (a file where a folder is written, a
folder where a file is), that lies under a file, or whose folder this user cannot write to
would otherwise fail halfway through a command with the operating system's traceback, after
the work it was to hold was done. Every writer of the package creates its output through
:func:`make_output_folder` or :func:`make_output_file`, and the command line checks its output
options with the same rules (:func:`check_output_folder`, :func:`check_output_file`) when it
parses them, before any work; each raises :class:`~coordqa.errors.OutputPathError`, which says
what is in the way and what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from coordqa.errors import OutputPathError

__all__ = ["check_output_file", "check_output_folder", "make_output_file", "make_output_folder"]

FOLDER = "the output folder"
"""How a library writer names its output folder in an error (the CLI names its option)."""
FILE = "the output file"
"""How a library writer names its output file in an error."""


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


def check_output_file(path: str | os.PathLike[str], name: str = FILE) -> Path:
    """``path`` as a file to write (replaced when it exists); raise if it cannot be one.

    Raises:
        OutputPathError: ``path`` is a folder, lies under a file, or cannot be written.
    """
    file = Path(path)
    if file.is_dir():
        raise OutputPathError(
            f"{name} {file} is a folder, not a file: give a file's path (one inside it: "
            f"{file / 'NAME'}), or remove the folder"
        )
    _check_writable(file, name)
    return file


def make_output_folder(path: str | os.PathLike[str], name: str = FOLDER) -> Path:
    """Check ``path`` (:func:`check_output_folder`), then create it and its parents."""
    folder = check_output_folder(path, name)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_output_file(path: str | os.PathLike[str], name: str = FILE) -> Path:
    """Check ``path`` (:func:`check_output_file`), then create the folders it is to be in.

    The file itself is the caller's to write.
    """
    file = check_output_file(path, name)
    file.parent.mkdir(parents=True, exist_ok=True)
    return file


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
