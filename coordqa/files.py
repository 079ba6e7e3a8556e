"""The one atomic write of the package: run files, datasets, caches and user registrations.

A reader sees the old file or the new one, never half of one, and the new one has reached the
disk (fsync) before it replaces the old, so a crash or a kill leaves no truncated file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text"]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a fsynced temporary file and ``os.replace``.

    The folder must exist. ``mkstemp`` makes owner-only files; the result is made readable like
    any file the package writes by ``open`` (``0o644``), so a run or dataset folder can be shared
    or served without some files in it being unreadable.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))
