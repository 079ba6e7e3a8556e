"""The one bounded read of a file coordqa is handed: at most so many bytes, never more.

A run folder, an eval set, a spec or a grid may come from anyone (a colleague's copy, an
archive, a repository), and each of their small files (``manifest.json``, ``eval-set.json``, a
YAML file) is a few kilobytes when coordqa wrote it. Reading one whole before any check let a
file of gigabytes, or a device given in its place, take the memory of whatever opened it (the
viewer, ``report``, ``submit``). Each such file is read up to its bound, and a larger one is
refused as not coordqa's.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MAX_SMALL_FILE_BYTES", "FileTooLarge", "read_at_most"]

MAX_SMALL_FILE_BYTES = 16 * 1024 * 1024
"""The bound of a file coordqa writes small: a manifest is ~4 kB, an eval set of 1,000 members
~300 kB, the paper's grid 3 kB."""


class FileTooLarge(ValueError):
    """A file holds more bytes than its bound: it is not one coordqa wrote (or meant)."""


def read_at_most(
    path: Path, limit: int = MAX_SMALL_FILE_BYTES, *, follow_link: bool = True
) -> bytes:
    """The bytes of ``path``, read no further than ``limit`` (and one more, to know).

    ``follow_link=False`` refuses a symbolic link at ``path`` itself (an ``OSError``): for a file
    whose content decides what coordqa deletes (an output folder's marker), a link would let
    the folder's author point that decision at a file elsewhere.

    Raises:
        OSError: the file cannot be opened or read, or is a link where none is followed.
        FileTooLarge: it holds more than ``limit`` bytes (a ``ValueError``, as undecodable or
            malformed content is, so callers that refuse a damaged file refuse this one too).
    """
    no_link = 0 if follow_link else getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(path, os.O_RDONLY | no_link), "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"larger than {limit:,} bytes, far more than coordqa writes there")
    return data
