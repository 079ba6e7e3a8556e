"""The bridge to hanabi-learning-environment: loading pyhanabi, new games, and move <-> text.

Everything that touches pyhanabi's move objects goes through here, so the text vocabulary
("Play my Card 2", "Reveal Bob's Red color cards") has exactly one definition. pyhanabi is
imported inside :func:`pyhanabi` so that importing coordqa never loads the C library.

Engine facts this module relies on (checked on 0.0.4):
- a ``HanabiGame`` owns the random generator that deals cards; every state made from it draws
  from that one generator. A fresh game is therefore built for every reset and every restore.
- hands are ordered oldest card first; a new card is appended on the right.
- move uids: 0-4 discard card i, 5-9 play card i, 10-14 reveal colour R,Y,G,W,B, 15-19 reveal
  rank 1-5 (to the other player, offset 1).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from coordqa.errors import ConfigError, GameError, MissingDependencyError
from coordqa.games.base import PLAYER_NAMES

COLORS = ("Red", "Yellow", "Green", "White", "Blue")
"""Colour names in the engine's colour-index order (R, Y, G, W, B)."""
RANKS = (1, 2, 3, 4, 5)
"""Card ranks as printed (the engine's rank index plus one)."""
COPIES = (3, 2, 2, 2, 1)
"""Copies of each rank per colour in the deck."""
HAND_SIZE = 5
MAX_INFO_TOKENS = 8
MAX_LIVES = 3
MAX_SEED = 2**31 - 1
"""pyhanabi parses the seed as a C ``int``; -1 would mean "seed from the system clock"."""


def pyhanabi() -> ModuleType:
    """Import and return pyhanabi (with its C library loaded), or explain how to install it."""
    try:
        from hanabi_learning_environment import pyhanabi as module
    except ImportError as exc:
        raise MissingDependencyError(
            "Hanabi needs hanabi-learning-environment 0.0.4: "
            "pip install 'coordqa[games]' (set CMAKE_POLICY_VERSION_MINIMUM=3.5 with recent CMake)"
        ) from exc
    if not module.lib_loaded():
        raise MissingDependencyError(
            "hanabi_learning_environment is installed but its C library did not load; "
            "reinstall it with: pip install --force-reinstall hanabi-learning-environment==0.0.4"
        )
    return module


def new_engine_game(seed: int) -> Any:
    """A fresh two-player, full-deck ``pyhanabi.HanabiGame`` dealing from ``seed``."""
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"Hanabi seed must be between 0 and {MAX_SEED}, got {seed}")
    return pyhanabi().HanabiGame({"players": 2, "seed": seed, "random_start_player": False})


def deal_chance_cards(state: Any) -> None:
    """Resolve pending chance events (card deals) so a player is on turn or the game is over."""
    chance = pyhanabi().CHANCE_PLAYER_ID
    for _ in range(2 * HAND_SIZE + 1):
        if state.cur_player() != chance:
            return
        state.deal_random_card()
    raise GameError("the Hanabi engine kept asking for card deals; the state is corrupt")


def card_name(color: int, rank: int) -> str:
    """``"Red 3"`` for engine colour index 0 and rank index 2."""
    return f"{COLORS[color]} {rank + 1}"


def play_text(index: int) -> str:
    """``"Play my Card 2"``."""
    return f"Play my Card {index}"


def discard_text(index: int) -> str:
    """``"Discard my Card 0"``."""
    return f"Discard my Card {index}"


def reveal_color_text(player: int, color: int) -> str:
    """``"Reveal Bob's Red color cards"`` said by ``player`` about the partner's cards."""
    return f"Reveal {PLAYER_NAMES[1 - player]}'s {COLORS[color]} color cards"


def reveal_rank_text(player: int, rank: int) -> str:
    """``"Reveal Bob's rank 1 cards"`` said by ``player`` (``rank`` is the engine index)."""
    return f"Reveal {PLAYER_NAMES[1 - player]}'s rank {rank + 1} cards"


def reveal_of(text: str, player: int) -> tuple[int | None, int | None]:
    """(colour index, None) or (None, rank index) of a reveal ``text`` said by ``player``.

    >>> reveal_of("Reveal Bob's rank 1 cards", 0)
    (None, 0)

    Raises:
        GameError: ``text`` is not one of ``player``'s reveals.
    """
    uid = action_uid(text, player)
    first_color = 2 * HAND_SIZE
    first_rank = first_color + len(COLORS)
    if first_color <= uid < first_rank:
        return uid - first_color, None
    if first_rank <= uid < first_rank + len(RANKS):
        return None, uid - first_rank
    raise GameError(f"{text!r} is not a reveal {PLAYER_NAMES[player]} can make")


def move_to_text(move: Any, player: int) -> str:
    """The text action for a pyhanabi ``HanabiMove`` made by ``player`` (0 Alice, 1 Bob).

    The four forms are "Play my Card 2", "Discard my Card 0", "Reveal Bob's Red color cards"
    and "Reveal Bob's rank 1 cards" (player 1 reveals Alice's cards).
    """
    kind = pyhanabi().HanabiMoveType
    move_type = move.type()
    if move_type == kind.PLAY:
        return play_text(move.card_index())
    if move_type == kind.DISCARD:
        return discard_text(move.card_index())
    if move_type == kind.REVEAL_COLOR:
        return reveal_color_text(player, move.color())
    if move_type == kind.REVEAL_RANK:
        return reveal_rank_text(player, move.rank())
    raise GameError(f"engine move {move} has no text form (only play, discard and reveal moves)")


@functools.cache
def uid_texts(player: int) -> tuple[str, ...]:
    """The text of every engine move uid for ``player``, in uid order.

    The uid layout depends only on the game parameters, which are fixed here, so the table is
    built once per player from one engine game.
    """
    hle_game = new_engine_game(0)
    return tuple(move_to_text(hle_game.get_move(u), player) for u in range(hle_game.max_moves()))


@functools.cache
def _uids_by_text(player: int) -> dict[str, int]:
    return {normalise(text): uid for uid, text in enumerate(uid_texts(player))}


def action_uid(text: str, player: int) -> int:
    """The engine move uid of ``player``'s text action (legal or not).

    Raises:
        GameError: ``text`` is not a Hanabi action.
    """
    uid = _uids_by_text(player).get(normalise(text))
    if uid is None:
        raise GameError(f"{text!r} is not a Hanabi action of {PLAYER_NAMES[player]}")
    return uid


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive key for matching a text action."""
    return " ".join(text.split()).casefold()


def legal_uids(hle_game: Any, state: Any) -> list[int]:
    """The uids of the legal moves of the player on turn, in the engine's order."""
    return [hle_game.get_move_uid(move) for move in state.legal_moves()]


def text_to_uid(text: str, player: int, on_turn: int, legal: list[int]) -> int:
    """The uid of the legal move ``text`` names for ``player``.

    Matching ignores case and repeated whitespace. Anything else is an error that lists the
    legal actions, because a caller (an LLM agent, a QA key) must pick one of them verbatim.

    Args:
        text: the text action.
        player: who wants to make it.
        on_turn: the player on turn.
        legal: the legal uids of the player on turn (:func:`legal_uids`).

    Raises:
        GameError: ``text`` is not a Hanabi action, or not legal for ``player`` now.
    """
    uid = _uids_by_text(player).get(normalise(text))
    if on_turn == player and uid in legal:
        return uid
    name = PLAYER_NAMES[player]
    if on_turn != player:
        reason = f"it is not {name}'s turn; {name} has no actions"
    else:
        reason = "it is not a Hanabi action" if uid is None else "it is not legal now"
        reason += "; legal actions: " + "; ".join(uid_texts(player)[u] for u in legal)
    raise GameError(f"cannot play {text!r} for {name}: {reason}")
