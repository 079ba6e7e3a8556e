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


def action_texts(hle_game: Any, player: int) -> dict[str, int]:
    """Every text action ``player`` could ever take, mapped to its engine move uid."""
    uids = range(hle_game.max_moves())
    return {move_to_text(hle_game.get_move(uid), player): uid for uid in uids}


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive key for matching a text action."""
    return " ".join(text.split()).casefold()


def text_to_move(hle_game: Any, state: Any, text: str, player: int) -> Any:
    """The legal engine move for the text action ``text`` of ``player``.

    Matching ignores case and repeated whitespace. Anything else is an error that lists the
    legal actions, because a caller (an LLM agent, a QA key) must pick one of them verbatim.

    Raises:
        GameError: ``text`` is not a Hanabi action, or not legal for ``player`` now.
    """
    legal = {normalise(move_to_text(m, player)): m for m in state.legal_moves()}
    if state.cur_player() == player and normalise(text) in legal:
        return legal[normalise(text)]
    if state.cur_player() != player:
        reason = f"it is not {PLAYER_NAMES[player]}'s turn; {PLAYER_NAMES[player]} has no actions"
    else:
        known = {normalise(t) for t in action_texts(hle_game, player)}
        reason = "it is not legal now" if normalise(text) in known else "it is not a Hanabi action"
        reason += "; legal actions: " + "; ".join(move_to_text(m, player) for m in legal.values())
    raise GameError(f"cannot play {text!r} for {PLAYER_NAMES[player]}: {reason}")
