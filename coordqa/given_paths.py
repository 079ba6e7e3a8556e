"""A path the user gave that is not there, or not a file: one wording each.

Every command that takes a file or a folder by path (an eval-set spec, a grid file, an
``--ids`` file, a dataset file, a run folder or a bundle to ``submit``) says a missing one in
these words: ``the eval-set spec local-model.yaml does not exist. Did you mean
'local-models.yaml'?``, never the operating system's ``[Errno 2] No such file or directory``
(walkthrough 15 R3). The caller adds what it takes instead; the names offered are those in the
folder the path points into, the way a typo'd command or game name gets its suggestion.

A folder given where a file is read (``coordqa eval-set runs/local``, the set's folder for its
spec) is said in the same way, ``the eval-set spec runs/local is an eval-set folder
(eval-set.json), not a file.``, never ``[Errno 21] Is a directory`` (walkthrough 18 R1):
:func:`not_a_file` says either.
"""

from __future__ import annotations

import os
from itertools import islice
from pathlib import Path

__all__ = ["YAML_SUFFIXES", "missing_path", "not_a_file"]

YAML_SUFFIXES = (".yaml", ".yml")
"""The endings of a spec or grid file: the files offered for a missing one."""

NAMES_READ = 1000
"""At most this many names of the folder are compared with the missing one: a bound on a
folder of thousands of runs (the closest among the first thousand is still a fair offer)."""


def missing_path(
    given: str | os.PathLike[str],
    what: str = "",
    suffixes: tuple[str, ...] = (),
    *,
    folders: bool = True,
) -> str:
    """``WHAT GIVEN does not exist.`` and the names beside it closest to it, if any.

    ``what`` names the kind of path (``the eval-set spec``, ``--ids file``; empty: none).
    ``suffixes``: the endings of the files the command reads (``.yaml``); only those, and
    folders unless ``folders`` is False (a spec or a grid is never a folder: walkthrough 31
    was offered a folder of GGUF files as its spec), are offered (a spec is never a dataset);
    empty: any name. A name offered is written
    as the user wrote the path (``runs/random-a`` for ``runs/random-b``), so it can be copied as
    it is. A folder that is not there, or cannot be listed, offers none.

    >>> missing_path("/no/such/folder/x.yaml", "grid file")
    'grid file /no/such/folder/x.yaml does not exist.'
    """
    from coordqa.registry import offer, suggest  # rapidfuzz: only for a missing path

    text = os.fspath(given)
    path = Path(text)
    try:
        with os.scandir(path.parent) as entries:
            names = [
                entry.name
                for entry in islice(entries, NAMES_READ)
                if not suffixes or entry.name.endswith(suffixes) or (folders and entry.is_dir())
            ]
    except OSError:
        names = []
    close = suggest(path.name, names)  # names compared, not paths: a long folder matches all
    shown = close if path.parent == Path() else [str(path.parent / name) for name in close]
    subject = f"{what} {text}" if what else text
    return f"{subject} does not exist.{offer(shown)}"


def not_a_file(
    given: str | os.PathLike[str],
    what: str = "",
    suffixes: tuple[str, ...] = (),
    *,
    folders: bool = True,
) -> str:
    """What keeps the file ``given`` from being read: missing, or a folder.

    A missing path is said as :func:`missing_path` says it (``suffixes`` and ``folders`` as
    there); a folder is
    ``WHAT GIVEN is a folder, not a file.``, or, a run's or an eval set's folder, names what it
    holds (:func:`~coordqa.runfolder.folder_words`), so the caller can say what that folder is
    given to instead. Said for what the reader met (``FileNotFoundError``,
    ``IsADirectoryError``), so a path that changed since is said as it is now.

    >>> not_a_file("/", "grid file")
    'grid file / is a folder, not a file.'
    """
    from coordqa.runfolder import folder_words

    text = os.fspath(given)
    path = Path(text)
    if not path.is_dir():
        return missing_path(given, what, suffixes, folders=folders)
    subject = f"{what} {text}" if what else text
    held = folder_words(path)
    return f"{subject} is {held or 'a folder'}, not a file."
