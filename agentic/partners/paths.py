"""Where partner files live: trained checkpoints, registrations, and caches.

Checkpoints and registrations are user data (they survive upgrades and are expensive to
recreate): the ``partners`` folder of the data root. Featurised human data is a cache (it can be
rebuilt from the installed package): the ``partners`` folder of the cache root. Both roots, and
the variables that move them, are :mod:`coordqa.paths`'.
"""

from __future__ import annotations

from pathlib import Path

from coordqa import paths

HANABI_WEIGHTS_SOURCE = (
    "the links in models/download.sh of https://github.com/facebookresearch/hanabi_SAD, unzipped "
    "(docs/games-and-partners.md: coordqa plays the authors' published weights, it does not "
    "train them)"
)
"""Where SAD/OBL weights come from, for every message that asks for them: coordqa cannot
download them and does not train them, so the authors' release is the only source."""


def data_dir() -> Path:
    """The partners' data folder (checkpoints, ``hanabi.json``); not created here."""
    return paths.data_dir("partners")


def cache_dir() -> Path:
    """The partners' cache folder (featurised human data); not created here."""
    return paths.cache_dir("partners")
