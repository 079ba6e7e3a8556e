"""What to call each run when several are shown together: one rule for report, compare, the viewer.

A run is called by its label (``coordqa eval --label``) or else its model. Runs that would share
a name are told apart by the settings in which they differ (``random (seed=0)`` and ``random
(seed=1)``), named as their options are (``top-p=0.9`` for ``--top-p 0.9``), and by their
directory names only when no setting differs (by as much of their paths as tells them apart, when
two folders hold runs of one name), so that a label stays short enough for a table column.

Each run shows the settings that tell it from its nearest runs of one name (those that differ from
it in the fewest settings), not the first settings that differ anywhere among them: in a folder
of ``--limit`` and ``--sample`` runs, a 1-trial run beside a 3-trial one of the same questions is
``random (trials=1)``, not ``random (no limit, no sample)`` with both names alike. A filter
left unset reads in words (``no limit``, ``all games``), a seed left unset ``seed=none``: no
seed is not seed 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coordqa.store import RunManifest
from coordqa.words import UNSET_FILTERS

__all__ = ["MAX_SETTINGS_SHOWN", "run_labels"]

MAX_SETTINGS_SHOWN = 2
"""At most this many differing settings name a run; more would not fit a table column."""


def _option(key: str) -> str:
    """A setting's name as its option spells it: ``top_p`` is ``top-p`` (``--top-p``)."""
    return key.replace("_", "-")


def _setting(key: str, value: Any) -> str:
    """A setting as a label shows it: ``top-p=0.9``, or a filter left unset in words.

    >>> _setting("top_p", 0.9), _setting("limit", None), _setting("limit", 5)
    ('top-p=0.9', 'no limit', 'limit=5')
    >>> _setting("games", None), _setting("seed", None)
    ('all games', 'seed=none')
    """
    if value is None and key in UNSET_FILTERS:
        return UNSET_FILTERS[key]
    return f"{_option(key)}={_shown(value)}"


def _shown(value: Any) -> str:
    """A setting's value as a label shows it: lists joined by commas, None as ``none``.

    >>> _shown(["EC", "JP"]), _shown(None), _shown(0.6)
    ('EC,JP', 'none', '0.6')
    """
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def _differing(configs: Sequence[dict[str, Any]]) -> list[str]:
    """The settings whose values are not the same in all of ``configs``, sorted."""
    keys = sorted({key for config in configs for key in config})
    return [k for k in keys if len({repr(config.get(k)) for config in configs}) > 1]


def _telling(settings: Sequence[dict[str, Any]], run: int) -> list[str]:
    """The settings that tell run ``run`` of ``settings`` from its nearest other runs.

    Its nearest are the runs that differ from it in the fewest settings (runs alike in all are
    told apart by their folders instead); the settings shown are every one in which any of those
    differs, sorted, so that two runs nearest each other both show what tells them apart.

    >>> _telling([{"t": 3, "l": 1}, {"t": 1, "l": 1}, {"t": 3, "l": 5}], 0)
    ['l', 't']
    >>> _telling([{"t": 3, "l": 1}, {"t": 1, "l": 1}, {"t": 1, "l": 5}], 1)
    ['l', 't']
    >>> _telling([{"t": 3, "l": 1}, {"t": 1, "l": 1}, {"t": 1, "l": 5}], 2)
    ['l']
    """
    others = [_differing([settings[run], other]) for i, other in enumerate(settings) if i != run]
    apart = [keys for keys in others if keys]
    if not apart:
        return []
    fewest = min(len(keys) for keys in apart)
    return sorted({key for keys in apart if len(keys) == fewest for key in keys})


def _settings(manifest: RunManifest) -> dict[str, Any]:
    """A run's settings as it ran them: ``dataset`` is the dataset answered.

    A run of the default dataset has no ``--dataset`` option, and would read ``dataset=none``.
    """
    if manifest.dataset is None:
        return manifest.config
    return {**manifest.config, "dataset": manifest.dataset.name}


def _places(paths: Sequence[Path]) -> list[str]:
    """The shortest ends of ``paths`` that tell them apart: the directory name, where it does.

    Two runs of one command in two folders share their directory name (``local/random_x`` and
    ``local-ray/random_x``); their parent folders then name them.

    >>> _places([Path("runs/local/r"), Path("runs/local-ray/r")])
    ['local/r', 'local-ray/r']
    """
    for depth in range(1, max(len(path.parts) for path in paths) + 1):
        ends = ["/".join(path.parts[-depth:]) for path in paths]
        if len(set(ends)) == len(ends):
            return ends
    return [str(path) for path in paths]


def run_labels(runs: Sequence[tuple[RunManifest, Path]]) -> list[str]:
    """A distinct, short name for each of ``runs`` (manifest and directory), in order.

    >>> from coordqa.store import RunManifest
    >>> def run(seed): return RunManifest(kind="qa", config={"model": "m", "seed": seed},
    ...                                  fingerprint="x")
    >>> run_labels([(run(0), Path("a")), (run(1), Path("b")), (run(1), Path("c"))])
    ['m (seed=0)', 'm (seed=1, b)', 'm (seed=1, c)']
    >>> run_labels([(run(1), Path("x/b")), (run(1), Path("y/b"))])
    ['m (x/b)', 'm (y/b)']
    """
    names = [manifest.label or str(manifest.config.get("model", "?")) for manifest, _ in runs]
    parts: list[list[str]] = [[] for _ in runs]
    for name, count in Counter(names).items():
        if count > 1:
            group = [i for i, n in enumerate(names) if n == name]
            settings = [_settings(runs[i][0]) for i in group]
            for member, i in enumerate(group):
                keys = _telling(settings, member)[:MAX_SETTINGS_SHOWN]
                parts[i] = [_setting(key, settings[member].get(key)) for key in keys]
    told = [(name, tuple(p)) for name, p in zip(names, parts, strict=True)]
    for same in {t for t in told if told.count(t) > 1}:
        group = [i for i, t in enumerate(told) if t == same]
        places = _places([runs[i][1] for i in group])
        for i, place in zip(group, places, strict=True):
            parts[i].append(place)
    return [f"{name} ({', '.join(p)})" if p else name for name, p in zip(names, parts, strict=True)]
