"""Where coordqa keeps files outside a run directory: one cache root and one data root.

- The **cache root** (``$COORDQA_CACHE_DIR``, else the user cache directory, e.g.
  ``~/.cache/coordqa``) holds what can be rebuilt: model replies (``responses/``), Overcooked
  planners (``overcooked/``), featurised human data (``partners/``).
- The **data root** (``$COORDQA_DATA_DIR``, else the user data directory, e.g.
  ``~/.local/share/coordqa``) holds what the user made and would lose: trained partners and
  registered weights (``partners/``), the default leaderboard database.

Neither is ever inside the installed package (style rule 6), and both move with one variable,
so tests and CI never touch a user's real folders. Folders are not created here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "CACHE_DIR_ENV",
    "DATA_DIR_ENV",
    "cache_dir",
    "cache_root",
    "data_dir",
    "data_root",
    "default_data_root",
]

CACHE_DIR_ENV = "COORDQA_CACHE_DIR"
"""Moves the cache root (every cache of coordqa lives in a sub-folder of it)."""
DATA_DIR_ENV = "COORDQA_DATA_DIR"
"""Moves the data root."""


def cache_root() -> Path:
    """``$COORDQA_CACHE_DIR``, else the user cache directory of coordqa."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("coordqa")


def data_root() -> Path:
    """``$COORDQA_DATA_DIR``, else the user data directory of coordqa."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return default_data_root()


def default_data_root() -> Path:
    """The user data directory of coordqa: the data root when ``$COORDQA_DATA_DIR`` is unset.

    Named on its own where a message says where user data goes whatever this shell's variable
    is (a run may have been played with another one).
    """
    import platformdirs

    return platformdirs.user_data_path("coordqa")


def cache_dir(name: str) -> Path:
    """The cache folder of one kind of cache (``responses``, ``overcooked``, ``partners``)."""
    return cache_root() / name


def data_dir(name: str) -> Path:
    """The data folder of one kind of user data (``partners``)."""
    return data_root() / name
