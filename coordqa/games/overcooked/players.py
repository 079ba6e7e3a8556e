"""Scripted Overcooked players: overcooked-ai's GreedyHumanModel and our planning player."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from coordqa.games.base import Observation, PlayerSpec, ScriptedPlayer, player_catalog
from coordqa.games.overcooked import engine
from coordqa.games.overcooked.planner import choose_task
from coordqa.games.overcooked.seat import geometry, kitchen
from coordqa.games.seat import SeatView
from coordqa.options import OPTIONS_CONFIG


@dataclass(frozen=True)
class GreedyOptions:
    """``GreedyHumanModel``'s options and their defaults (the model's own)."""

    __pydantic_config__ = OPTIONS_CONFIG

    hl_boltzmann_rational: bool = False
    """Choose high-level goals by a Boltzmann distribution over their costs."""
    ll_boltzmann_rational: bool = False
    """Choose primitive moves by a Boltzmann distribution over their costs."""
    hl_temp: float = 1
    """Temperature of the high-level Boltzmann choice."""
    ll_temp: float = 1
    """Temperature of the low-level Boltzmann choice."""
    auto_unstuck: bool = True
    """Make a random move when both players stood still for a step."""


class GreedyHumanPlayer(ScriptedPlayer):
    """overcooked-ai's ``GreedyHumanModel``: a primitive move every timestep.

    It keeps its own NumPy generator (seeded by :meth:`reset`) for the random un-sticking moves
    the model makes when both players stand still, and swaps it in for each call, because the
    model draws from NumPy's global generator.

    Known limits of the model itself (measured identically under plain overcooked-ai 1.1.0
    dynamics): it never puts items on counters, so a pair scores 0 on Forced Coordination; and
    two copies fall into position cycles longer than one step, which its un-sticking rule (same
    positions two steps running) never sees, so a pair scores 0 on Coordination Ring and little
    on Counter Circuit.
    """

    name: ClassVar[str] = "greedy_human"

    def __init__(self, options: GreedyOptions | None = None) -> None:
        """Keep ``GreedyHumanModel`` options for :meth:`reset`.

        The model itself is built in :meth:`reset`, when the layout is known.
        """
        self._options = dataclasses.asdict(options or GreedyOptions())
        self._model: Any = None
        self._rng_state: Any = None

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Build a fresh model for the view's layout, playing as ``player``."""
        import numpy as np

        from coordqa.games.overcooked.engine import overcooked

        GreedyHumanModel = overcooked("agents.agent").GreedyHumanModel  # noqa: N806

        kitchen(view)
        mlam = engine.action_manager(view.layout)
        self._model = GreedyHumanModel(mlam, **self._options)
        self._model.set_agent_index(player)
        self._model.set_mdp(mlam.mdp)
        self._rng_state = np.random.RandomState(seed).get_state()

    def choose(self, observation: Observation) -> str:
        """The model's primitive move for the current state."""
        import numpy as np

        if self._model is None:
            self.reset(observation.view, observation.player, 0)
        saved = np.random.get_state()
        np.random.set_state(self._rng_state)
        try:
            action, _info = self._model.action(kitchen(observation.view).state)
        finally:
            self._rng_state = np.random.get_state()
            np.random.set_state(saved)
        return engine.primitive_name(action)


class PlannerPlayer(ScriptedPlayer):
    """Our planning player: text actions chosen by a partner-aware task allocation rule.

    The rule is in ``planner.py``; playing text actions, it can partner an LLM agent on equal
    terms.
    """

    name: ClassVar[str] = "planner"

    def choose(self, observation: Observation) -> str:
        """The next medium-level text action."""
        seen = kitchen(observation.view)
        layout = geometry(observation.view.layout)
        task = choose_task(layout, seen.state, observation.player, seen.partner_task)
        return task.text


def greedy_human(
    game_name: str, layout: str | None, options: GreedyOptions | None = None
) -> GreedyHumanPlayer:
    """Factory for :class:`GreedyHumanPlayer` with its parsed :class:`GreedyOptions`."""
    return GreedyHumanPlayer(options or GreedyOptions())


def planner(game_name: str, layout: str | None) -> PlannerPlayer:
    """Factory for :class:`PlannerPlayer` (it takes no options)."""
    return PlannerPlayer()


PLAYERS = player_catalog(
    PlayerSpec(
        "greedy_human",
        ("overcooked",),
        greedy_human,
        "overcooked-ai's GreedyHumanModel (primitive moves; cannot pass items)",
        options=GreedyOptions,
    ),
    PlayerSpec(
        "planner",
        ("overcooked",),
        planner,
        "partner-aware planner choosing medium-level text actions",
    ),
)
"""The scripted Overcooked players."""
