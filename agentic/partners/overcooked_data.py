"""The human Overcooked gameplay shipped in overcooked-ai 1.1.0, as (features, action) samples.

The data (Carroll et al. 2019) was recorded with an older engine: states are Python-literal
strings with objects keyed ``"x,y"``, players may lack ``held_object``, and soups use the legacy
``[ingredient, count, cook_time]`` triple. :func:`convert_state` turns one row into a 1.1.0
``OvercookedState`` so that the *current* featuriser (``mdp.featurize_state(state, mlam,
num_pots=2)``, 96 numbers per player) sees exactly what it sees during play. Every timestep of
both players is a sample, as in the original behaviour cloning.

Featurising a layout takes seconds, and training runs many times, so the arrays are cached as
``.npz`` in the user cache directory, keyed by the data file's hash.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from coordqa.agentic.partners.paths import cache_dir
from coordqa.errors import ConfigError, DatasetError, MissingDependencyError
from coordqa.files import atomic_write_bytes
from coordqa.games.overcooked.engine import PRIMITIVE_NAMES

LAYOUT_DATA_NAMES: dict[str, str] = {
    "cramped_room": "cramped_room",
    "asymmetric_advantages": "asymmetric_advantages",
    "coordination_ring": "coordination_ring",
    "forced_coordination": "random0",
    "counter_circuit_o_1order": "random3",
}
"""Our layout name -> the layout's name in the human data (two were renamed after 2019)."""

SPLIT_FILES: dict[str, str] = {
    "train": "clean_train_trials.pickle",
    "test": "clean_test_trials.pickle",
}
"""Data split -> file in ``overcooked_ai_py/data/human_data``. BC trains on ``train``; the human
proxy (HP) used for evaluation trains on ``test``, so the two never share a trial."""

ACTION_NAMES: tuple[str, ...] = PRIMITIVE_NAMES
"""The 6 primitive moves, in overcooked-ai's action index order (the network's output order)."""

_DATA_ACTIONS: dict[Any, int] = {
    (0, -1): 0,
    (0, 1): 1,
    (1, 0): 2,
    (-1, 0): 3,
    (0, 0): 4,
    "INTERACT": 5,
}

FEATURE_VERSION = 1
"""Bumped whenever conversion or featurisation changes, so stale caches are not reused."""


@dataclass(frozen=True)
class HumanData:
    """Featurised samples of one layout and split."""

    features: np.ndarray
    """float32 ``[n, 96]``: ``featurize_state`` of the acting player's view."""
    actions: np.ndarray
    """int64 ``[n]``: index into :data:`ACTION_NAMES` of what the human did."""
    data_hash: str
    """sha256 of the source pickle, recorded in checkpoints (which data a model saw)."""


def check_layout(layout: str) -> str:
    """Return the human-data name of ``layout``, or raise with the layouts that have data."""
    if layout not in LAYOUT_DATA_NAMES:
        from coordqa.registry import suggest

        close = suggest(layout, list(LAYOUT_DATA_NAMES))
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ConfigError(
            f"no human data for Overcooked layout {layout!r}.{hint} "
            f"Layouts with data: {', '.join(LAYOUT_DATA_NAMES)}."
        )
    return LAYOUT_DATA_NAMES[layout]


def check_split(split: str) -> str:
    """Return ``split``, or raise naming the splits of the human data (``train``, ``test``)."""
    if split not in SPLIT_FILES:
        raise ConfigError(f"unknown split {split!r}: use one of {', '.join(SPLIT_FILES)}")
    return split


def data_file(split: str) -> Path:
    """Path of the installed human-data pickle for ``split`` (``"train"`` or ``"test"``)."""
    check_split(split)
    spec = importlib.util.find_spec("overcooked_ai_py")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the Overcooked human data needs overcooked-ai: pip install 'coordqa[games]'"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "human_data"
    path = path / SPLIT_FILES[split]
    if not path.is_file():
        raise DatasetError(f"{path} is missing: reinstall overcooked-ai==1.1.0")
    return path


def file_hash(path: Path) -> str:
    """sha256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def convert_state(raw: str, layout: str) -> Any:
    """Turn one legacy state string of the human data into a 1.1.0 ``OvercookedState``.

    ``layout`` is needed because overcooked-ai keeps the recipe rules (cook time) in class-level
    globals that only building the layout's gridworld sets; soups cannot be made before that.

    Raises:
        DatasetError: the string is not a state of the expected shape.
    """
    from coordqa.games.overcooked.engine import gridworld, overcooked

    OvercookedState = overcooked("mdp.overcooked_mdp").OvercookedState  # noqa: N806

    gridworld(layout)

    try:
        data = ast.literal_eval(raw)
        players = [
            {
                "position": tuple(p["position"]),
                "orientation": tuple(p["orientation"]),
                "held_object": p.get("held_object"),
            }
            for p in data["players"]
        ]
        objects = list(data["objects"].values())
        return OvercookedState.from_dict({"players": players, "objects": objects})
    except (ValueError, SyntaxError, KeyError, TypeError) as exc:
        raise DatasetError(f"cannot convert human-data state {raw[:80]!r}...: {exc}") from exc


def parse_joint_action(raw: str) -> tuple[int, int]:
    """Action indices of both players from a row's ``joint_action`` string."""
    try:
        first, second = (
            _DATA_ACTIONS[a if isinstance(a, str) else tuple(a)] for a in ast.literal_eval(raw)
        )  # exactly two players, else ValueError
        return first, second
    except (ValueError, SyntaxError, KeyError, TypeError) as exc:
        raise DatasetError(f"cannot parse human-data joint action {raw!r}: {exc}") from exc


def load_human_data(layout: str, split: str, limit: int | None = None) -> HumanData:
    """Featurised human samples of ``layout`` and ``split``, from the cache when possible.

    Args:
        layout: one of :data:`LAYOUT_DATA_NAMES` (our names).
        split: ``"train"`` or ``"test"``.
        limit: use only the first ``limit`` timesteps (quick tests); not cached.
    """
    data_name = check_layout(layout)
    path = data_file(split)
    digest = file_hash(path)
    cache = cache_dir() / f"overcooked-{layout}-{split}-v{FEATURE_VERSION}-{digest[:16]}.npz"
    if limit is None and cache.is_file():
        with np.load(cache) as arrays:
            return HumanData(arrays["features"], arrays["actions"], digest)
    features, actions = _featurise(path, layout, data_name, limit)
    if limit is None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, features=features, actions=actions)
        atomic_write_bytes(cache, buffer.getvalue())
    return HumanData(features, actions, digest)


def _featurise(
    path: Path, layout: str, data_name: str, limit: int | None
) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd

    from coordqa.agentic.partners.overcooked_env import layout_mdp

    frame = pd.read_pickle(path)
    rows = frame[frame["layout_name"] == data_name]
    if limit is not None:
        rows = rows.iloc[:limit]
    if rows.empty:
        raise DatasetError(f"{path.name} has no rows for layout {data_name!r}")
    mdp, mlam = layout_mdp(layout)
    features: list[np.ndarray] = []
    actions: list[int] = []
    for raw_state, raw_action in zip(rows["state"], rows["joint_action"], strict=True):
        state = convert_state(raw_state, layout)
        per_player = mdp.featurize_state(state, mlam, num_pots=2)
        for player, action in enumerate(parse_joint_action(raw_action)):
            features.append(np.asarray(per_player[player], dtype=np.float32))
            actions.append(action)
    return np.stack(features), np.asarray(actions, dtype=np.int64)
