"""The bridge to overcooked-ai 1.1.0: gridworlds, primitive moves and medium-level action managers.

Everything here imports ``overcooked_ai_py`` lazily (it pulls in pygame and cv2), so importing
``coordqa.games`` stays cheap. Gridworlds and action managers are built once per layout and
cached: in memory for the process, and the action manager also on disk under the user cache
directory, never inside the installed package (overcooked-ai's own ``from_pickle_or_compute``
writes into ``site-packages/overcooked_ai_py/data/planners``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import pickle
import sys
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from coordqa import paths
from coordqa.errors import MissingDependencyError
from coordqa.files import atomic_write_bytes
from coordqa.jsonvalues import content_hash

COOK_TIME = 20
"""Timesteps a three-onion soup cooks (the paper's setting)."""
DELIVERY_REWARD = 20
"""Points per delivered soup."""

PRIMITIVE_NAMES = ("north", "south", "east", "west", "stay", "interact")
"""Engine moves, in overcooked-ai's ``Action.ALL_ACTIONS`` order."""

DIRECTIONS: dict[str, tuple[int, int]] = {
    "north": (0, -1),
    "south": (0, 1),
    "east": (1, 0),
    "west": (-1, 0),
}
"""Grid offsets of the four moves ((x, y), y grows downwards), as overcooked-ai's ``Direction``."""

MLAM_PARAMS: dict[str, Any] = {
    "start_orientations": False,
    "wait_allowed": False,
    "counter_goals": [],
    "counter_drop": [],
    "counter_pickup": [],
    "same_motion_goals": True,
}
"""overcooked-ai's ``NO_COUNTERS_PARAMS``: what GreedyHumanModel and BC featurisation use, and
the only setting that builds in seconds on Counter Circuit (with counter goals it takes minutes)."""


def overcooked(module: str) -> Any:
    """``overcooked_ai_py.<module>``, imported without the notice its ``gym`` prints.

    overcooked-ai imports gym 0.26, which prints a deprecation notice ("Gym has been unmaintained
    since 2022 ...") to stderr when it is first imported: a ``print``, so warning filters cannot
    catch it, and it would land in every ``coordqa`` command that touches Overcooked. That one
    notice is dropped; anything else the import writes to stderr is passed on.

    Raises:
        MissingDependencyError: overcooked-ai is not installed.
    """
    name = f"overcooked_ai_py.{module}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return importlib.import_module(name)
    except ImportError as exc:
        raise MissingDependencyError(
            f"Overcooked needs overcooked-ai 1.1.0 ({exc}). Install it with "
            "`pip install 'coordqa[games]'` or `pip install overcooked-ai==1.1.0`."
        ) from exc
    finally:
        sys.stderr.write(_without_gym_notice(captured.getvalue()))


def _without_gym_notice(text: str) -> str:
    """``text`` without the notice the installed gym prints on import."""
    try:
        from gym_notices.notices import notices

        notice = notices.get(version("gym"))
    except (ImportError, PackageNotFoundError):
        return text
    return text.replace(f"{notice}\n", "") if notice else text


@functools.cache
def gridworld(layout: str) -> Any:
    """The ``OvercookedGridworld`` of ``layout``: onion soups, cook time 20, 20 points each.

    Cached per layout: the object is only read (states live in ``OvercookedState``).
    """
    return overcooked("mdp.overcooked_mdp").OvercookedGridworld.from_layout_name(
        layout, cook_time=COOK_TIME, delivery_reward=DELIVERY_REWARD
    )


@functools.lru_cache(maxsize=1)
def primitives() -> dict[str, Any]:
    """Primitive move name -> overcooked-ai ``Action`` value (a direction tuple or "interact")."""
    actions = overcooked("mdp.actions")
    Action, Direction = actions.Action, actions.Direction  # noqa: N806 (overcooked-ai's names)
    return {
        "north": Direction.NORTH,
        "south": Direction.SOUTH,
        "east": Direction.EAST,
        "west": Direction.WEST,
        "stay": Action.STAY,
        "interact": Action.INTERACT,
    }


def primitive_name(action: Any) -> str:
    """The name of an overcooked-ai ``Action`` value (inverse of :func:`primitives`)."""
    for name, value in primitives().items():
        if value == action:
            return name
    raise ValueError(f"not an overcooked-ai action: {action!r}; expected one of {PRIMITIVE_NAMES}")


def cache_dir() -> Path:
    """Where planners are cached: the ``overcooked`` folder of the cache root."""
    return paths.cache_dir("overcooked")


@functools.cache
def action_manager(layout: str) -> Any:
    """overcooked-ai's ``MediumLevelActionManager`` for ``layout`` (``MLAM_PARAMS``), cached.

    The first call per machine computes it (0.1-6 s) and pickles it under :func:`cache_dir`;
    later processes load the pickle. A stale or unreadable pickle is recomputed. While it is
    computed, overcooked-ai's own motion-planner pickles go to :func:`cache_dir` as well (its
    planner rolls plans out in an ``OvercookedEnv``, which saves one into its package folder).
    """
    mlam_class = overcooked("planning.planners").MediumLevelActionManager
    mdp = gridworld(layout)
    key = content_hash([layout, MLAM_PARAMS, mdp.terrain_mtx])[:16]
    path = cache_dir() / f"{layout}-{key}-mlam.pkl"
    mlam = _load_pickle(path)
    if mlam is None or mlam.params != MLAM_PARAMS or mlam.mdp != mdp:
        with _planners_in(cache_dir()):
            mlam = mlam_class(mdp, MLAM_PARAMS)
        _save_pickle(path, mlam)
    return mlam


@contextlib.contextmanager
def _planners_in(folder: Path) -> Iterator[None]:
    """Point overcooked-ai's planner pickles at ``folder`` and silence its progress prints.

    overcooked-ai reads the folder from a module global (``PLANNERS_DIR``) in two modules and
    offers no parameter for it; both are restored on exit.
    """
    data_planners = overcooked("data.planners")
    planners = overcooked("planning.planners")

    folder.mkdir(parents=True, exist_ok=True)
    saved = (planners.PLANNERS_DIR, data_planners.PLANNERS_DIR)
    planners.PLANNERS_DIR = data_planners.PLANNERS_DIR = str(folder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        planners.PLANNERS_DIR, data_planners.PLANNERS_DIR = saved


def _load_pickle(path: Path) -> Any:
    """Unpickle our own cache file; None when it is missing or unreadable (then recompute)."""
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)  # noqa: S301 (a file this module wrote)
    except FileNotFoundError:
        return None
    except (pickle.UnpicklingError, EOFError, AttributeError, ModuleNotFoundError):
        return None


def _save_pickle(path: Path, value: Any) -> None:
    """Write atomically, so concurrent workers never read half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
