"""SAD and OBL Hanabi partners: recurrent networks that step on every turn and play greedily.

As in the authors' evaluation, both players run their network on every state of the game, the
one not on turn included (its only legal action is the no-op), so each network's LSTM sees the
whole game; the hidden state starts at zero and is never reset mid-game. The player therefore
runs its network in :meth:`~HanabiNetPlayer.reset` on the first state and in
:meth:`~HanabiNetPlayer.observe` after every step, and :meth:`~HanabiNetPlayer.choose` only reads
the advantages computed for the current state: the argmax over the legal move uids, ties to the
lowest uid, mapped back to the game's text action. The network reads its seat's engine
observation (own cards hidden), as in training.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from coordqa.agentic.partners.hanabi_encoder import CanonicalEncoder, obl_inputs, sad_input
from coordqa.agentic.partners.hanabi_nets import LoadedNet, import_torch
from coordqa.errors import GameError
from coordqa.games.base import Observation, ScriptedPlayer, StepResult
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.view import hanabi_seat
from coordqa.games.seat import SeatView


class HanabiNetPlayer(ScriptedPlayer):
    """A SAD or OBL network playing our Hanabi game."""

    name = "hanabi-net"

    def __init__(self, net: LoadedNet, label: str) -> None:
        """Play with ``net``; ``label`` names it in errors (the registered partner name)."""
        self.net = net
        self.label = label
        self._torch = import_torch()
        self._encoder = CanonicalEncoder()
        self._player = 0
        self._hidden: tuple[Any, Any] | None = None
        self._advantages: np.ndarray | None = None
        self._turn: int | None = -1

    def reset(self, view: SeatView, player: int, seed: int) -> None:
        """Zero the LSTM state and run the network on the first state (greedy: seed unused)."""
        self._player = player
        zeros = self._torch.zeros(self.net.shape.lstm_layers, 1, self.net.shape.hidden)
        self._hidden = (zeros, zeros.clone())
        self._step(view)

    def observe(self, view: SeatView, player: int, result: StepResult) -> None:
        """Run the network on the state the step produced (for both players, every step)."""
        if not view.is_terminal():
            self._step(view)

    def choose(self, observation: Observation) -> str:
        """The legal move with the highest advantage, as the game's text action."""
        view = observation.view
        if self._advantages is None or self._turn != view.turn:
            raise GameError(
                f"{self.label} was asked to move without having seen this state: call reset() "
                "before the first move and observe() after every step (play_episode does)"
            )
        uids = sorted(engine.action_uid(text, view.seat) for text in observation.legal_actions)
        if not uids:
            raise GameError(f"{self.label} was asked to move but has no legal move")
        best = uids[int(np.argmax(self._advantages[uids]))]
        return engine.uid_texts(view.seat)[best]

    def _step(self, view: SeatView) -> None:
        """Advance the LSTM by one state and keep the advantages for :meth:`choose`."""
        vector = self._encoder.encode(_seat_observation(view, self.label))
        if self.net.shape.kind == "sad":
            arrays: tuple[np.ndarray, ...] = (sad_input(vector),)
        else:
            arrays = obl_inputs(vector)
        torch = self._torch
        inputs = tuple(torch.from_numpy(a).unsqueeze(0) for a in arrays)
        with torch.no_grad():
            advantages, self._hidden = self.net.module(inputs, self._hidden)
        self._advantages = advantages.squeeze(0).numpy()
        self._turn = view.turn


def _seat_observation(view: SeatView, label: str) -> Any:
    """The seat's engine observation (the networks' input), or a GameError for another game."""
    if view.name != "hanabi":
        raise GameError(f"SAD/OBL partners play hanabi, not {view.name}")
    return hanabi_seat(view).engine
