"""Where partner files live: trained checkpoints, registrations, and caches.

Checkpoints and registrations are user data (they survive upgrades and are expensive to
recreate): the ``partners`` folder of the data root. Featurised human data is a cache (it can be
rebuilt from the installed package): the ``partners`` folder of the cache root. Both roots, and
the variables that move them, are :mod:`coordqa.paths`'.
"""

from __future__ import annotations

from pathlib import Path

from coordqa import paths


def data_dir() -> Path:
    """The partners' data folder (checkpoints, ``hanabi.json``); not created here."""
    return paths.data_dir("partners")


def cache_dir() -> Path:
    """The partners' cache folder (featurised human data); not created here."""
    return paths.cache_dir("partners")
