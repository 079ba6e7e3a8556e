"""A BC or human-proxy partner playing our Overcooked game through primitive moves.

Each step the partner featurises the state its seat sees (the whole kitchen), samples a move
from the network's softmax with its own seeded generator, and applies the 2019 "unstuck" rule:
when its position and orientation were the same at its last 3 decisions, the moves it made at those
decisions get probability zero (the rest is renormalised), so two cloned humans facing each
other in a corridor do not freeze for the rest of the episode.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from coordqa.agentic.partners.bc import BCCheckpoint
from coordqa.agentic.partners.overcooked_data import ACTION_NAMES
from coordqa.agentic.partners.overcooked_env import layout_mdp
from coordqa.errors import GameError
from coordqa.games.base import Observation, ScriptedPlayer
from coordqa.games.seat import SeatView

STUCK_WINDOW = 3
"""Decisions with an unchanged position and orientation that count as stuck."""


def unstuck(probs: np.ndarray, poses: list[Any], actions: list[int]) -> np.ndarray:
    """Apply the unstuck rule to ``probs`` given the recent poses (current last) and moves.

    >>> p = np.full(6, 1 / 6)
    >>> unstuck(p, [(1, 1)] * 3, [4, 4, 0]).round(2).tolist()
    [0.0, 0.25, 0.25, 0.25, 0.0, 0.25]
    """
    if len(poses) < STUCK_WINDOW or len(set(poses[-STUCK_WINDOW:])) != 1:
        return probs
    adjusted = probs.copy()
    adjusted[actions[-STUCK_WINDOW:]] = 0.0
    total = adjusted.sum()
    if total <= 0.0:
        adjusted = np.ones_like(probs)
        adjusted[actions[-STUCK_WINDOW:]] = 0.0
        total = adjusted.sum()
    result: np.ndarray = adjusted / total
    return result


class BCPlayer(ScriptedPlayer):
    """Samples primitive Overcooked moves from a behaviour-cloned policy."""

    name = "bc"

    def __init__(self, checkpoint: BCCheckpoint) -> None:
        """Play with ``checkpoint`` (trained for ``checkpoint.meta["layout"]``)."""
        self.checkpoint = checkpoint
        self.layout = str(checkpoint.meta["layout"])
        self._rng = np.random.default_rng(0)
        self._poses: deque[Any] = deque(maxlen=STUCK_WINDOW)
        self._actions: deque[int] = deque(maxlen=STUCK_WINDOW)

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Seed the sampler and forget the previous episode's history."""
        if view.layout != self.layout:
            raise GameError(
                f"{self.checkpoint.meta['name']} was trained on {self.layout}, not "
                f"{view.layout}: use bc-{view.layout} / hp-{view.layout}"
            )
        self._rng = np.random.default_rng(seed)
        self._poses.clear()
        self._actions.clear()

    def action_probabilities(self, view: SeatView, player: int) -> np.ndarray:
        """The network's move distribution for ``player`` in the state ``view`` shows."""
        state = _kitchen_state(view)
        mdp, planner = layout_mdp(view.layout)
        features = mdp.featurize_state(state, planner, num_pots=2)[player]
        return self.checkpoint.probabilities(np.asarray(features, dtype=np.float32))

    def stats(self) -> dict[str, str]:
        """The checkpoint played, by fingerprint: each episode records it (``agent_stats``)."""
        return {"checkpoint": self.checkpoint.fingerprint}

    def choose(self, observation: Observation) -> str:
        """Sample a primitive move (after the unstuck rule)."""
        view, player = observation.view, observation.player
        probs = self.action_probabilities(view, player)
        me = _kitchen_state(view).players[player]
        self._poses.append((me.position, me.orientation))
        probs = unstuck(probs, list(self._poses), list(self._actions))
        action = int(self._rng.choice(len(ACTION_NAMES), p=probs))
        self._actions.append(action)
        return ACTION_NAMES[action]


def _kitchen_state(view: SeatView) -> Any:
    """The Overcooked state ``view`` shows (BC reads the engine state), or a GameError."""
    from coordqa.games.overcooked.seat import kitchen

    return kitchen(view, "BC/HP partners").state
