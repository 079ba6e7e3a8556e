"""Where partner files live: trained checkpoints, registrations, and caches.

Checkpoints and registrations are user data (they survive upgrades and are expensive to
recreate); featurised human data is a cache (it can be rebuilt from the installed package). Both
live outside the installed package (style rule 6), and both can be redirected by environment
variables so tests and CI never touch a user's real directories.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "COORDQA_DATA_DIR"
"""Overrides ``platformdirs.user_data_dir("coordqa")``; partners live in its ``partners`` folder."""
CACHE_DIR_ENV = "COORDQA_CACHE_DIR"
"""Overrides ``platformdirs.user_cache_dir("coordqa")``; feature caches live in ``partners``."""


def data_dir() -> Path:
    """The partners' data folder (checkpoints, ``hanabi.json``); not created here."""
    root = os.environ.get(DATA_DIR_ENV)
    if not root:
        import platformdirs

        root = platformdirs.user_data_dir("coordqa")
    return Path(root) / "partners"


def cache_dir() -> Path:
    """The partners' cache folder (featurised human data); not created here."""
    root = os.environ.get(CACHE_DIR_ENV)
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("coordqa")
    return Path(root) / "partners"
