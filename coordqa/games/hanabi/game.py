"""Two-player Hanabi as a text environment on hanabi-learning-environment (pyhanabi).

The engine does every rule: legal moves, hint knowledge, scoring. This class adds the text
(descriptions and actions) and the snapshot: a state is fully given by its seed and the list of
text actions played so far, because a fresh engine game with the same seed deals the same cards
when the same moves are replayed (``random_start_player`` is off, Alice starts).

Players never see this object: they are handed a seat view whose observation is a
:class:`~coordqa.games.hanabi.view.HanabiSeatObservation` (the engine's per-player observation,
own hand hidden, and the public record of moves). For other engineers (scenario builders, tests):
- ``game.hle_game``: the pyhanabi ``HanabiGame``; move uids via ``hle_game.get_move_uid(move)``
  and ``hle_game.get_move(uid)`` (0-4 discard, 5-9 play, 10-14 reveal colour, 15-19 rank).
- ``game.state``: the pyhanabi ``HanabiState``; ``game.state.observation(player)`` is that
  player's engine observation (feed it to ``pyhanabi.ObservationEncoder`` for the 658 vector).
  Never deal on a copy of it: copies share the game's card generator (hints are safe). Change
  the state only through ``step`` (the legal-move cache is keyed on the turn count).
- ``game.move_to_text(move, player)`` and ``game.text_to_move(text, player)`` convert between
  engine moves and text actions.
- ``game.turns``: every completed move with its outcome; ``game.last_action(player)``.
- ``game.clues``: which cards reveals have touched and how the conventions read them
  (:class:`~coordqa.games.hanabi.clues.ClueMarks`); ``game.fork()`` to try a move on a copy.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from coordqa.errors import ConfigError, GameError
from coordqa.games.base import PLAYER_NAMES, Game, JsonDict, SeatSecrets, StepResult
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.clues import ClueMarks
from coordqa.games.hanabi.conventions import game_description
from coordqa.games.hanabi.describe import Turn, describe_state
from coordqa.games.hanabi.knowledge import Board, state_hands
from coordqa.games.hanabi.profile import PROFILE
from coordqa.games.hanabi.view import HanabiSeatObservation
from coordqa.games.profile import GameProfile


class Hanabi(Game[HanabiSeatObservation]):
    """Full two-player Hanabi: 5 colours, ranks 1-5, hands of 5, 8 reveal tokens, 3 lives."""

    name: ClassVar[str] = "hanabi"
    version: ClassVar[str] = "hanabi-v2"
    restores_versions: ClassVar[tuple[str, ...]] = ("hanabi-v1",)
    layouts: ClassVar[tuple[str, ...]] = ("default",)
    turn_based: ClassVar[bool] = True
    legal_actions_public: ClassVar[bool] = False
    profile: ClassVar[GameProfile] = PROFILE

    def __init__(self, layout: str | None = None, seed: int = 0, **options: Any) -> None:
        """Create a game dealt from ``seed``; Hanabi takes no options."""
        if options:
            raise ConfigError(
                f"Hanabi takes no options, got {sorted(options)}; it is always the full "
                "two-player game (5 colours, hands of 5, 8 reveal tokens, 3 lives)"
            )
        super().__init__(layout, seed)
        if self.layout not in self.layouts:
            raise ConfigError(f"unknown Hanabi layout {self.layout!r}; the only one is 'default'")
        self.hle_game: Any = None
        self.state: Any = None
        self.turns: list[Turn] = []
        self.clues: ClueMarks = ClueMarks([[], []], [[], []])
        self._clues_before_last: ClueMarks = self.clues
        self._legal: tuple[int, list[int]] | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Deal a new game (from ``seed`` when given, else the current seed)."""
        if seed is not None:
            self.seed = seed
        self.hle_game = engine.new_engine_game(self.seed)
        self.state = self.hle_game.new_initial_state()
        engine.deal_chance_cards(self.state)
        self.turns = []
        self.clues = ClueMarks.start(state_hands(self.state))
        self._clues_before_last = self.clues.copy()
        self._legal = None

    def fork(self) -> Hanabi:
        """A copy to try moves on, without replaying: state, turns and clue marks are copied.

        The copy shares the engine game, and so the card generator: dealing on the copy (a play or
        a discard) changes what later deals on any copy of this game give, never the cards
        already dealt here.
        """
        twin = copy.copy(self)
        twin.state = self.state.copy()
        twin.turns = list(self.turns)
        twin.clues = self.clues.copy()
        twin._clues_before_last = self._clues_before_last.copy()
        return twin

    def players_to_act(self) -> list[int]:
        """The player on turn (nobody once the game is over)."""
        return [] if self.state.is_terminal() else [self.state.cur_player()]

    def legal_actions(self, player: int) -> list[str]:
        """The engine's legal moves as text, in engine (uid) order; [] when not on turn."""
        if self.state.is_terminal() or self.state.cur_player() != player:
            return []
        texts = engine.uid_texts(player)
        return [texts[uid] for uid in self._legal_uids()]

    def _legal_uids(self) -> list[int]:
        """Legal move uids of the player on turn, computed once per turn."""
        if self._legal is None or self._legal[0] != len(self.turns):
            self._legal = (len(self.turns), engine.legal_uids(self.hle_game, self.state))
        return self._legal[1]

    def move_to_text(self, move: Any, player: int) -> str:
        """The text action of a pyhanabi ``HanabiMove`` made by ``player``."""
        return engine.move_to_text(move, player)

    def text_to_move(self, text: str, player: int) -> Any:
        """The legal pyhanabi ``HanabiMove`` for ``text`` (raises GameError listing legal ones)."""
        return self.hle_game.get_move(self._text_to_uid(text, player))

    def _text_to_uid(self, text: str, player: int) -> int:
        on_turn = -1 if self.state.is_terminal() else self.state.cur_player()
        legal = self._legal_uids() if on_turn >= 0 else []
        return engine.text_to_uid(text, player, on_turn, legal)

    def describe(self, player: int) -> str:
        """Working-memory text for ``player`` (paper Appendix B.2 order)."""
        return describe_state(
            self.state,
            player,
            self.turns,
            int(self.score()),
            self.clues.clued,
            self._shown_marks(player).marks,
        )

    def _shown_marks(self, player: int) -> ClueMarks:
        """The marks ``player`` is shown: the partner's latest reveal is left for them to read."""
        last = self.turns[-1] if self.turns else None
        if last is not None and last.card is None and last.player != player:
            return self._clues_before_last
        return self.clues

    def game_description(self) -> str:
        """Rules, basic H-group conventions, objective and action space."""
        return game_description()

    def seat_observation(self, seat: int) -> HanabiSeatObservation:
        """The engine's observation of ``seat`` (own hand hidden) and the moves so far."""
        return HanabiSeatObservation(self.state.observation(seat), tuple(self.turns))

    def seat_secrets(self, seat: int) -> SeatSecrets:
        """The engine's full-state objects, and ``seat``'s own cards (as (colour, rank))."""
        hle = engine.pyhanabi()
        hand = [(card.color(), card.rank()) for card in self.state.player_hands()[seat]]
        return SeatSecrets(
            (hle.HanabiState, hle.HanabiGame),
            functools.partial(shows_hand, hand=hand),
            "the seat's own Hanabi cards",
        )

    def step(self, moves: Mapping[int, str]) -> StepResult:
        """Apply the move of the player on turn, then deal the replacement card."""
        if self.state.is_terminal():
            raise GameError("the Hanabi game is over; reset it to play again")
        player = self.state.cur_player()
        extra = sorted(set(moves) - {player})
        if player not in moves or extra:
            raise GameError(
                f"Hanabi expects exactly one move, from {PLAYER_NAMES[player]} (player {player}) "
                f"who is on turn; got moves for players {sorted(moves)}"
            )
        text = moves[player]
        uid = self._text_to_uid(text, player)
        move = self.hle_game.get_move(uid)
        action = engine.uid_texts(player)[uid]
        before = self.score()
        turn = self._apply(move, player, action)
        turn = dataclasses.replace(turn, newly=self.clues.newly_touched(turn))
        self._clues_before_last = self.clues.copy()
        self.clues.observe(state_hands(self.state), Board.of(self.state), turn)
        self.turns.append(turn)
        events = [_event(turn)]
        if self.state.is_terminal():
            events.append(f"the game is over with score {int(self.score())}")
        return StepResult(
            executed={player: action},
            reward=self.score() - before,
            completed={player: action},
            events=events,
            terminal=self.state.is_terminal(),
        )

    def _apply(self, move: Any, player: int, action: str) -> Turn:
        """Apply ``move`` to the engine and record what it did."""
        kind = engine.pyhanabi().HanabiMoveType
        hands = self.state.player_hands()
        stacks_before = sum(self.state.fireworks())
        if move.type() in (kind.PLAY, kind.DISCARD):
            held = hands[player][move.card_index()]
            card = (held.color(), held.rank())
            self.state.apply_move(move)
            scored = sum(self.state.fireworks()) > stacks_before
            engine.deal_chance_cards(self.state)
            return Turn(player, action, card=card, scored=scored)
        target = hands[1 - player]
        if move.type() == kind.REVEAL_COLOR:
            touched = tuple(i for i, c in enumerate(target) if c.color() == move.color())
        else:
            touched = tuple(i for i, c in enumerate(target) if c.rank() == move.rank())
        self.state.apply_move(move)
        return Turn(player, action, touched=touched)

    def is_terminal(self) -> bool:
        """Whether the engine says the game has ended."""
        return bool(self.state.is_terminal())

    def score(self) -> float:
        """Sum of the stacks; 0 once all lives are lost (the engine's own rule)."""
        return float(self.state.score())

    def metrics(self) -> dict[str, float]:
        """Score, bombs (lives lost), turns, hints given, discards and successful plays."""
        return {
            "score": self.score(),
            "bombs": float(engine.MAX_LIVES - self.state.life_tokens()),
            "turns": float(len(self.turns)),
            "hints": float(sum(t.card is None for t in self.turns)),
            "discards": float(sum(t.action.startswith("Discard") for t in self.turns)),
            "plays": float(sum(t.scored for t in self.turns)),
        }

    def last_actions(self, player: int) -> list[str]:
        """``player``'s text actions so far, oldest first."""
        return [t.action for t in self.turns if t.player == player]

    def last_action(self, player: int) -> str | None:
        """``player``'s most recent text action, or None before their first move."""
        actions = self.last_actions(player)
        return actions[-1] if actions else None

    def snapshot(self) -> JsonDict:
        """Seed and moves so far (the state is rebuilt by replay), plus each player's last move."""
        return {
            **self.snapshot_identity(),
            "moves": [t.action for t in self.turns],
            "last_actions": [self.last_action(0), self.last_action(1)],
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """Replay the snapshot's moves on a fresh game with its seed.

        Raises:
            GameError: the snapshot is not a Hanabi snapshot, a move is illegal on replay, or its
                ``last_actions`` disagree with its moves.
        """
        if snapshot.get("game", self.name) != self.name or "moves" not in snapshot:
            raise GameError(
                f"not a Hanabi snapshot (need game='hanabi', seed and moves): {dict(snapshot)!r}"
            )
        self.reset(int(snapshot.get("seed", self.seed)))
        for number, text in enumerate(snapshot["moves"]):
            player = self.state.cur_player()
            try:
                self.step({player: text})
            except GameError as exc:
                raise GameError(f"Hanabi snapshot move {number} does not replay: {exc}") from exc
        stored = snapshot.get("last_actions")
        if stored is not None and list(stored) != [self.last_action(0), self.last_action(1)]:
            raise GameError(
                f"Hanabi snapshot last_actions {stored!r} disagree with its moves "
                f"(replay gives {[self.last_action(0), self.last_action(1)]!r})"
            )


def _event(turn: Turn) -> str:
    """A short log line for a turn."""
    name = PLAYER_NAMES[turn.player]
    if turn.card is None:
        return f"{name}: {turn.action} (touched cards {list(turn.touched)})"
    card = engine.card_name(*turn.card)
    if turn.action.startswith("Discard"):
        return f"{name} discarded {card}"
    return f"{name} played {card}" + ("" if turn.scored else " and lost a life")


def shows_hand(value: Any, hand: list[tuple[int, int]]) -> bool:
    """Whether ``value`` spells out ``hand``: an engine observation's hands or a card list."""
    observed = getattr(value, "observed_hands", None)
    if callable(observed) and type(value).__name__ == "HanabiObservation":
        return any(_cards(h) == hand for h in observed())
    return isinstance(value, (list, tuple)) and len(value) == len(hand) and _cards(value) == hand


def _cards(items: Sequence[Any]) -> list[tuple[int, int]] | None:
    """``items`` as (colour, rank) pairs, from engine cards or pairs; None if they are not."""
    cards = []
    for item in items:
        if callable(getattr(item, "color", None)) and callable(getattr(item, "rank", None)):
            cards.append((item.color(), item.rank()))
        elif isinstance(item, tuple) and len(item) == 2 and all(type(x) is int for x in item):
            cards.append((item[0], item[1]))
        else:
            return None
    return cards


def as_hanabi(game: Game) -> Hanabi:
    """``game`` as a Hanabi game (for code that holds the game: scenario builders, not players)."""
    if not isinstance(game, Hanabi):
        raise GameError(f"expected a Hanabi game, not {type(game).__name__}")
    return game
