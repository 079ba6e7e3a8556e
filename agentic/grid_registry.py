"""Registered grids: the fixed, versioned task lists of the agentic leaderboard.

A registered grid is a YAML file shipped with coordqa (``coordqa/agentic/grids/*.yaml``; the
repository's ``examples/grids`` points at the same folder) that carries a ``version``. Like the
QA dataset's fingerprint, its :attr:`RegisteredGrid.fingerprint` is a hash of exactly what it
asks every submission to play: its tasks (game, layout, partner, seat, seed, game options,
preset; :class:`~coordqa.agentic.episodes.EpisodeTask`), whatever agent and model are tested.
Changing a grid's tasks changes its fingerprint; bump its ``version`` with it.

API for the leaderboard::

    grid = get_grid("paper")               # or registered_grids()["paper"]
    grid.name, grid.version, grid.fingerprint
    grid.tasks()                           # what a submission must cover
    grid.episodes("cac", "openai/gpt-4o")  # the EpisodeSpecs it expands to for one agent
    missing_tasks(grid, [e.spec for e in episodes])   # [] when a submission covers the grid

An agentic run of a registered grid names it in its manifest: ``config["grid"]`` holds the name,
version and fingerprint (:meth:`coordqa.agentic.grid.GridConfig.identity`); a run whose grid was
changed on the command line (other seeds, partners or preset) has another fingerprint.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from coordqa.agentic.episodes import EpisodeSpec, EpisodeTask
from coordqa.agentic.grid import GridConfig, load_grid, parse_grid, read_grid_file
from coordqa.errors import ConfigError, UnknownNameError
from coordqa.jsonvalues import JSONObject
from coordqa.options import OptionValue

GRIDS_DIR = Path(__file__).parent / "grids"
"""Where the registered grids are installed (package data)."""


@dataclass(frozen=True)
class RegisteredGrid:
    """A grid shipped with coordqa, with its version and fingerprint."""

    name: str
    """The grid's name (its file stem and its ``name:``)."""
    version: int
    """Its ``version:``, bumped whenever its tasks change."""
    path: Path
    """The YAML file."""
    config: GridConfig
    """The grid as written (its agents are a default; submissions bring their own)."""

    @property
    def fingerprint(self) -> str:
        """Hash of the grid's tasks (see :meth:`GridConfig.fingerprint`)."""
        return self.config.fingerprint()

    def tasks(self) -> list[EpisodeTask]:
        """Every task a submission must play."""
        return self.config.tasks()

    def episodes(
        self,
        agent: str,
        model: str | None = None,
        agent_options: Mapping[str, OptionValue] | None = None,
    ) -> list[EpisodeSpec]:
        """The episodes of the grid for one agent (and model), with the grid's preset.

        Raises:
            ConfigError: an LLM agent without a model.
        """
        data = self.config.model_dump(mode="json")
        data.update(agents=[agent], models=[] if model is None else [model])
        data["agent_options"] = {agent: dict(agent_options or {})}
        return parse_grid(data, where=f"grid {self.name}").episodes()

    def identity(self) -> JSONObject:
        """``{name, version, fingerprint}``: how a run or a submission names this grid."""
        return {"name": self.name, "version": self.version, "fingerprint": self.fingerprint}


def _load(path: Path) -> RegisteredGrid:
    config = load_grid(path)
    if config.version is None or config.name != path.stem:
        raise ConfigError(
            f"registered grid {path} needs version: N and name: {path.stem} (got version "
            f"{config.version!r}, name {config.name!r})"
        )
    return RegisteredGrid(config.name, config.version, path, config)


@cache
def registered_grids() -> dict[str, RegisteredGrid]:
    """Every grid shipped with coordqa, by name."""
    return {path.stem: _load(path) for path in sorted(GRIDS_DIR.glob("*.yaml"))}


def registered_grid(name: str) -> RegisteredGrid | None:
    """The registered grid called ``name`` in any case (``Smoke``: ``smoke``); None if none is."""
    from coordqa.registry import spelled_as  # rapidfuzz, imported with it: only when asked

    grids = registered_grids()
    return grids.get(spelled_as(name, grids))


def get_grid(name: str) -> RegisteredGrid:
    """The registered grid called ``name``, in any case.

    Raises:
        UnknownNameError: no such grid (lists the registered ones, suggests the closest).
    """
    return registered_grids()[_registered_path(name).stem]


def _registered_path(name: str) -> Path:
    """The file of the registered grid ``name``, read in any case (``Smoke``: ``smoke``).

    Raises:
        UnknownNameError: no such grid (lists the registered ones, suggests the closest).
    """
    from coordqa.registry import did_you_mean, spelled_as

    names = sorted(path.stem for path in GRIDS_DIR.glob("*.yaml"))
    name = spelled_as(name, names)  # in any case, as models, games and agents are
    if name not in names:
        raise UnknownNameError(
            f"no registered grid {name!r}.{did_you_mean(name, names)} Registered: "
            f"{', '.join(names)}; or give the path of a grid YAML file."
        )
    return GRIDS_DIR / f"{name}.yaml"


def names_a_grid_file(given: str | Path) -> bool:
    """Whether ``given`` is read as a grid file's path rather than a registered grid's name.

    It ends in .yaml or .yml, holds a path separator, or is there: no grid name has these, so
    a missing file so named is a mistyped path, refused as one (never looked up as a name here
    or sent to a board as one: walkthrough 12 #115).
    """
    text = str(given)
    return (
        Path(text).suffix in (".yaml", ".yml")
        or "/" in text
        or os.sep in text
        or Path(text).exists()
    )


def grid_document(name_or_path: str | Path) -> dict[str, Any]:
    """The document of a grid YAML path, or else of a registered grid, not yet validated.

    What the command line accepts: it changes the document (other models, agents, seeds...)
    and then validates it once (:func:`~coordqa.agentic.grid.parse_grid`).

    Raises:
        UnknownNameError: neither a YAML path nor a registered grid's name.
        ConfigError: the file is missing or not a grid document.
    """
    if names_a_grid_file(name_or_path):
        return read_grid_file(name_or_path)
    return read_grid_file(_registered_path(str(name_or_path)))


def missing_tasks(grid: RegisteredGrid, specs: Iterable[EpisodeSpec]) -> list[EpisodeTask]:
    """The grid's tasks that no episode of ``specs`` plays ([] when they cover the grid)."""
    covered = {spec.task.key for spec in specs}
    return [task for task in grid.tasks() if task.key not in covered]
