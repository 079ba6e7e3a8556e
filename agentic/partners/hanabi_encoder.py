"""Network inputs for the SAD and OBL Hanabi partners, built from the pip HLE encoder.

The published networks were trained on the authors' fork of hanabi-learning-environment, whose
observation differs from the pip package's canonical encoding in one place: every card-knowledge
slot carries the "v0 belief" (each card still plausible for that slot, weighted by how many
copies of it are not yet publicly accounted for, normalised to sum 1) instead of binary
plausibility bits. :func:`v0_belief` makes that replacement on the pip 658-vector, and
:func:`sad_input` / :func:`obl_inputs` arrange it as each network expects.

Layout of the two-player canonical vector (offsets below): partner's cards, missing-card bits,
deck, fireworks, info and life tokens, discards, last action, then 35 numbers of knowledge per
card slot (25 plausible-card bits, 5 colour-hinted, 5 rank-hinted): own 5 slots, then the
partner's 5.
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any

import numpy as np

from coordqa.errors import GameError

NUM_COLORS = 5
NUM_RANKS = 5
HAND_SIZE = 5
CARD_TYPES = NUM_COLORS * NUM_RANKS
COPIES = np.array([3, 2, 2, 2, 1])
"""Copies of ranks 1-5 in each colour."""

CANONICAL_SIZE = 658
PARTNER_HAND = slice(0, 125)
DECK_START = 127
FIREWORKS = slice(167, 192)
DISCARDS = slice(203, 253)
LAST_ACTION = slice(253, 308)
KNOWLEDGE_START = 308
SLOT_SIZE = 35
SLOTS = 2 * HAND_SIZE
PUBLIC_START = PARTNER_HAND.stop
"""OBL's public input is the canonical vector without the partner's cards."""
SAD_SIZE = 838
OBL_PRIVATE_SIZE = CANONICAL_SIZE
OBL_PUBLIC_SIZE = CANONICAL_SIZE - PUBLIC_START

_DISCARD_TYPE = np.repeat(np.arange(CARD_TYPES), np.tile(COPIES, NUM_COLORS))
"""Card type (colour * 5 + rank) of each of the 50 discard bits (one bit per copy)."""
_PLAUSIBLE = (
    KNOWLEDGE_START + SLOT_SIZE * np.arange(SLOTS)[:, None] + np.arange(CARD_TYPES)[None, :]
)
"""Indices ``[10, 25]`` of the plausible-card bits of every knowledge slot."""


def public_remaining(vector: np.ndarray) -> np.ndarray:
    """Copies of each card type (``[25]``, colour * 5 + rank) not yet discarded or played.

    Both quantities are public, so both players compute the same counts; cards in hands are not
    subtracted (that is what makes it the public "v0" belief).

    >>> v = np.zeros(CANONICAL_SIZE)
    >>> v[DISCARDS.start] = 1          # one Red 1 discarded
    >>> v[FIREWORKS.start + 1] = 1     # Red firework at 2: Red 1 and Red 2 played
    >>> public_remaining(v)[:5].tolist()
    [1, 1, 2, 2, 1]
    """
    discarded = np.bincount(_DISCARD_TYPE, weights=vector[DISCARDS], minlength=CARD_TYPES)
    levels = vector[FIREWORKS].reshape(NUM_COLORS, NUM_RANKS)
    height = np.where(levels.any(axis=1), levels.argmax(axis=1) + 1, 0)
    played = (np.arange(NUM_RANKS)[None, :] < height[:, None]).astype(np.int64)
    remaining: np.ndarray = np.tile(COPIES, NUM_COLORS) - discarded.astype(np.int64)
    return remaining - played.reshape(-1)


def v0_belief(vector: np.ndarray) -> np.ndarray:
    """The canonical vector with every slot's plausible-card bits replaced by the v0 belief.

    An empty slot (no card, all bits zero) stays zero; hint bits and all other sections are
    unchanged.
    """
    if vector.shape != (CANONICAL_SIZE,):
        raise GameError(
            f"expected the 2-player canonical Hanabi vector of {CANONICAL_SIZE} values, "
            f"got shape {tuple(vector.shape)}"
        )
    result = vector.astype(np.float32)
    weights = result[_PLAUSIBLE] * public_remaining(vector)[None, :]
    totals = weights.sum(axis=1, keepdims=True)
    result[_PLAUSIBLE] = np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)
    return result


def sad_input(vector: np.ndarray) -> np.ndarray:
    """SAD's 838 inputs: 125 zeros (own hidden hand), the v0 vector, a copy of the last action."""
    return np.concatenate([np.zeros(125, dtype=np.float32), vector, vector[LAST_ACTION]]).astype(
        np.float32
    )


def obl_inputs(vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OBL's (private 658, public 533) inputs from the v0 vector."""
    return vector.astype(np.float32), vector[PUBLIC_START:].astype(np.float32)


class CanonicalEncoder:
    """pyhanabi's canonical encoder, with the v0-belief replacement.

    The encoder reads one seat's engine observation (own cards hidden) and takes only the game
    parameters from the engine game it is bound to, so it is bound once to a template game of
    the standard parameters, never to the live game.
    """

    def __init__(self) -> None:
        """Start with no engine encoder (it is built on the first :meth:`encode`)."""
        self._game: Any = None
        self._encoder: Any = None
        _LIVE.add(self)

    def release(self) -> None:
        """Free the engine encoder now (it is rebuilt on the next :meth:`encode`)."""
        self._encoder = None
        self._game = None

    def encode(self, observation: Any) -> np.ndarray:
        """The 658-value v0-belief vector of a seat's pyhanabi ``HanabiObservation``."""
        if self._encoder is None:
            from coordqa.games.hanabi.engine import new_engine_game, pyhanabi

            module = pyhanabi()
            self._game = new_engine_game(0)
            self._encoder = module.ObservationEncoder(
                self._game, module.ObservationEncoderType.CANONICAL
            )
            if list(self._encoder.shape()) != [CANONICAL_SIZE]:
                raise GameError(
                    f"SAD/OBL need the standard 2-player game (canonical size {CANONICAL_SIZE}), "
                    f"this game encodes to {self._encoder.shape()}"
                )
        raw = np.asarray(self._encoder.encode(observation), dtype=np.float32)
        return v0_belief(raw)


_LIVE: weakref.WeakSet[CanonicalEncoder] = weakref.WeakSet()


@atexit.register
def _release_all() -> None:
    """Free engine encoders while pyhanabi's ``__del__`` still works.

    At interpreter teardown cffi is gone, and every live encoder would print a traceback.
    """
    for encoder in list(_LIVE):
        encoder.release()
