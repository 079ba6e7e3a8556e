"""SAD and OBL Hanabi partners: recurrent networks that step on every turn and play greedily.

As in the authors' evaluation, both players run their network on every state of the game, the
one not on turn included (its only legal action is the no-op), so each network's LSTM sees the
whole game; the hidden state starts at zero and is never reset mid-game. The player therefore
runs its network in :meth:`~HanabiNetPlayer.reset` on the first state and in
:meth:`~HanabiNetPlayer.observe` after every step, and :meth:`~HanabiNetPlayer.choose` only reads
the advantages computed for the current state: the argmax over the legal move uids, ties to the
lowest uid, mapped back to the game's text action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from coordqa.agentic.partners.hanabi_encoder import CanonicalEncoder, obl_inputs, sad_input
from coordqa.agentic.partners.hanabi_nets import LoadedNet, import_torch
from coordqa.errors import GameError
from coordqa.games.base import Game, Observation, ScriptedPlayer, StepResult

if TYPE_CHECKING:
    from coordqa.games.hanabi import Hanabi


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
        self._turn = -1

    def reset(self, game: Game, player: int, seed: int) -> None:
        """Zero the LSTM state and run the network on the first state (greedy: seed unused)."""
        self._player = player
        zeros = self._torch.zeros(self.net.shape.lstm_layers, 1, self.net.shape.hidden)
        self._hidden = (zeros, zeros.clone())
        self._step(game)

    def observe(self, game: Game, player: int, result: StepResult) -> None:
        """Run the network on the state the step produced (for both players, every step)."""
        if not game.is_terminal():
            self._step(game)

    def choose(self, observation: Observation) -> str:
        """The legal move with the highest advantage, as the game's text action."""
        game = _hanabi(observation.game)
        if self._advantages is None or self._turn != _turns(game):
            raise GameError(
                f"{self.label} was asked to move without having seen this state: call reset() "
                "before the first move and observe() after every step (play_episode does)"
            )
        moves = {game.hle_game.get_move_uid(move): move for move in game.state.legal_moves()}
        if not moves:
            raise GameError(f"{self.label} was asked to move but has no legal move")
        uids = sorted(moves)
        best = uids[int(np.argmax(self._advantages[uids]))]
        return game.move_to_text(moves[best], observation.player)

    def _step(self, live: Game) -> None:
        """Advance the LSTM by one state and keep the advantages for :meth:`choose`."""
        game = _hanabi(live)
        vector = self._encoder.encode(game.hle_game, game.state, self._player)
        if self.net.shape.kind == "sad":
            arrays: tuple[np.ndarray, ...] = (sad_input(vector),)
        else:
            arrays = obl_inputs(vector)
        torch = self._torch
        inputs = tuple(torch.from_numpy(a).unsqueeze(0) for a in arrays)
        with torch.no_grad():
            advantages, self._hidden = self.net.module(inputs, self._hidden)
        self._advantages = advantages.squeeze(0).numpy()
        self._turn = _turns(game)


def _turns(game: Hanabi) -> int:
    """Moves played so far: identifies the current state within an episode."""
    return len(game.turns)


def _hanabi(game: Game) -> Hanabi:
    """``game`` as our Hanabi game (the networks read its engine state), or a GameError."""
    from coordqa.games.hanabi import Hanabi

    if not isinstance(game, Hanabi):
        raise GameError(f"SAD/OBL partners play hanabi, not {game.name}")
    return game
