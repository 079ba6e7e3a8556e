"""The rule-based Hanabi players of Walton-Rivers et al. (2017), as short priority lists.

"Evaluating and modelling Hanabi-playing agents" built agents from a shared library of rules
(play-if-certain, tell-playable, discard-oldest, ...); each agent tries its rules in order and
takes the first that applies. The same structure is used here; card knowledge comes from the
engine (hints) plus counting, see :mod:`coordqa.games.hanabi.view`. Every list ends with a legal
random move, so a player always answers with a legal action.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coordqa.errors import GameError
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.knowledge import Card, chance, surely
from coordqa.games.hanabi.view import View

Rule = Callable[[View, random.Random], "str | None"]
"""A rule proposes a text action, or None when it does not apply."""


def _first_legal(view: View, candidates: Sequence[str]) -> str | None:
    legal = set(view.legal)
    return next((text for text in candidates if text in legal), None)


def play_if_certain(view: View, rng: random.Random) -> str | None:
    """Play a card whose colour and rank were both revealed and which is playable."""
    for index, knowledge in enumerate(view.knowledge[0]):
        color, rank = knowledge.color, knowledge.rank
        if color is not None and rank is not None and view.board.playable((color, rank)):
            return _first_legal(view, [engine.play_text(index)])
    return None


def play_safe(view: View, rng: random.Random) -> str | None:
    """Play a card that is playable whatever it turns out to be."""
    for index, cards in enumerate(view.own_possible):
        if surely(cards, view.board.playable):
            return _first_legal(view, [engine.play_text(index)])
    return None


def play_probably_safe(threshold: float, min_lives: int = 1) -> Rule:
    """Play the card most likely playable if that chance is at least ``threshold``."""

    def rule(view: View, rng: random.Random) -> str | None:
        if view.lives < min_lives:
            return None
        odds = [chance(cards, view.unseen, view.board.playable) for cards in view.own_possible]
        if not odds:
            return None
        best = max(range(len(odds)), key=lambda i: odds[i])
        return _first_legal(view, [engine.play_text(best)]) if odds[best] >= threshold else None

    return rule


def hail_mary(view: View, rng: random.Random) -> str | None:
    """With the deck empty and a life to spare, play the most likely playable card."""
    if view.deck_size > 0 or view.lives <= 1:
        return None
    return play_probably_safe(0.0)(view, rng)


def discard_safe(view: View, rng: random.Random) -> str | None:
    """Discard a card that can never score (the Osawa discard)."""
    if not view.can_discard():
        return None
    for index, cards in enumerate(view.own_possible):
        if surely(cards, view.board.useless):
            return engine.discard_text(index)
    return None


def discard_probably_useless(threshold: float) -> Rule:
    """Discard the card most likely useless if that chance is at least ``threshold``."""

    def rule(view: View, rng: random.Random) -> str | None:
        if not view.can_discard() or not view.own_possible:
            return None
        odds = [chance(cards, view.unseen, view.board.useless) for cards in view.own_possible]
        best = max(range(len(odds)), key=lambda i: odds[i])
        return engine.discard_text(best) if odds[best] >= threshold else None

    return rule


def discard_oldest(view: View, rng: random.Random) -> str | None:
    """Discard the card held longest."""
    return engine.discard_text(0) if view.can_discard() and view.own_possible else None


def discard_randomly(view: View, rng: random.Random) -> str | None:
    """Discard a random card."""
    if not view.can_discard() or not view.own_possible:
        return None
    return engine.discard_text(rng.randrange(len(view.own_possible)))


def _tell_about(view: View, index: int, rank_first: bool = True) -> str | None:
    """A reveal giving the partner missing information about their card ``index``."""
    knowledge = view.knowledge[1][index]
    color_text, rank_text = view.reveal_texts(index)
    missing = []
    if knowledge.rank is None:
        missing.append(rank_text)
    if knowledge.color is None:
        missing.append(color_text)
    if not rank_first:
        missing.reverse()
    return _first_legal(view, missing) if view.can_reveal() else None


def _tell_first(view: View, test: Callable[[Card], bool]) -> str | None:
    """Reveal something new about the oldest partner card passing ``test``.

    Cards the partner can already tell pass ``test`` are skipped.
    """
    for index, card in enumerate(view.partner_hand):
        if test(card) and not surely(view.partner_possible[index], test):
            text = _tell_about(view, index)
            if text is not None:
                return text
    return None


def tell_playable(view: View, rng: random.Random) -> str | None:
    """Tell the partner about a playable card they do not know is playable."""
    return _tell_first(view, view.board.playable)


def tell_useless(view: View, rng: random.Random) -> str | None:
    """Tell the partner about a card that can never score (so they can discard it)."""
    return _tell_first(view, view.board.useless)


def tell_unknown(view: View, rng: random.Random) -> str | None:
    """Tell the partner something they do not know about a random card (Outer)."""
    options = [
        text
        for index in range(len(view.partner_hand))
        for text in [_tell_about(view, index, rank_first=rng.random() < 0.5)]
        if text is not None
    ]
    return rng.choice(options) if options else None


def tell_randomly(view: View, rng: random.Random) -> str | None:
    """A random legal reveal."""
    reveals = [text for text in view.legal if text.startswith("Reveal")]
    return rng.choice(reveals) if reveals else None


def tell_most_information(view: View, rng: random.Random) -> str | None:
    """The reveal that gives new information about the most partner cards."""
    best: tuple[int, str] | None = None
    for text in view.legal:
        if not text.startswith("Reveal"):
            continue
        gained = 0
        for index, card in enumerate(view.partner_hand):
            knowledge = view.knowledge[1][index]
            if text == engine.reveal_color_text(view.me, card[0]):
                gained += knowledge.color is None
            elif text == engine.reveal_rank_text(view.me, card[1]):
                gained += knowledge.rank is None
        if gained and (best is None or gained > best[0]):
            best = (gained, text)
    return best[1] if best else None


def when(condition: Callable[[View], bool], rule: Rule) -> Rule:
    """``rule`` applied only while ``condition`` holds."""
    return lambda view, rng: rule(view, rng) if condition(view) else None


def legal_random(view: View, rng: random.Random) -> str | None:
    """Any legal action, uniformly."""
    return rng.choice(view.legal) if view.legal else None


@dataclass(frozen=True)
class RuleAgent:
    """A named priority list of rules."""

    name: str
    """Registry name."""
    description: str
    """One line for listings."""
    rules: tuple[Rule, ...]
    """Tried in order; the first action proposed is taken."""

    def decide(self, view: View, rng: random.Random) -> str:
        """The first proposed action, else a random legal one."""
        for rule in (*self.rules, legal_random):
            action = rule(view, rng)
            if action is not None:
                return action
        raise GameError(f"{self.name} was asked to move with no legal action")


AGENTS = (
    RuleAgent("hanabi-legal-random", "Walton-Rivers Legal Random: a random legal move", ()),
    RuleAgent(
        "hanabi-internal",
        "Walton-Rivers Internal: plays and discards from its own knowledge, tells randomly",
        (play_safe, discard_safe, tell_randomly, discard_randomly),
    ),
    RuleAgent(
        "hanabi-outer",
        "Walton-Rivers Outer: tells the partner what they do not know",
        (play_safe, discard_safe, tell_unknown, discard_randomly),
    ),
    RuleAgent(
        "hanabi-iggi",
        "Walton-Rivers IGGI: play if certain, tell playable, discard useless, discard oldest",
        (play_if_certain, play_safe, tell_playable, discard_safe, discard_oldest),
    ),
    RuleAgent(
        "hanabi-piers",
        "Walton-Rivers Piers: IGGI plus risky plays (60%) and telling discardable cards",
        (
            hail_mary,
            play_safe,
            play_probably_safe(0.6, min_lives=2),
            tell_playable,
            when(lambda view: view.info_tokens < 4, tell_useless),
            discard_safe,
            discard_oldest,
            tell_randomly,
            discard_randomly,
        ),
    ),
    RuleAgent(
        "hanabi-van-den-bergh",
        "Walton-Rivers Van den Bergh: probable plays and discards, most-informative tells",
        (
            play_probably_safe(0.6),
            discard_probably_useless(1.0),
            tell_playable,
            tell_useless,
            tell_most_information,
            discard_probably_useless(0.0),
        ),
    ),
    RuleAgent(
        "hanabi-flawed",
        "Walton-Rivers Flawed: plays at 25% odds and tells randomly",
        (
            play_safe,
            play_probably_safe(0.25),
            tell_randomly,
            discard_safe,
            discard_oldest,
            discard_randomly,
        ),
    ),
)
"""The rule-based players registered for Hanabi."""
