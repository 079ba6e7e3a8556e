"""Hanabi scenarios for CoordinationQA: seeded scripted play, question building, curation.

Candidate states come from seeded self-play games of the ``hanabi-convention`` bot, which follows
the conventions text exactly; every state after the partner's first move is a candidate, seen by
the player on turn. The questions and answer keys come from :mod:`coordqa.scenarios.hanabi_solvers`:

- EC (exact, from my knowledge and card counting, my own pinned-down cards included): is my card
  certainly playable, which of my cards are certainly useless, how many copies of a card are
  unseen, is a partner card critical, what is the best score still reachable given the discards.
- ToM: which reveal makes the partner play a playable card (kind 1), or what the partner's last
  reveal tells me (kind 2), both by the clue-reading rule of the conventions text, cross-checked
  against the simulated ``hanabi-convention`` partner.
- JP: the best next action by a one-step tier ranking that follows the conventions text, or, in
  the last rounds, by searching the rest of the game (:mod:`coordqa.scenarios.hanabi_endgame`).

``python -m coordqa.scenarios.curate_hanabi`` rewrites ``curated/hanabi.json`` (28 scenarios).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

from coordqa.errors import ConfigError
from coordqa.games.base import Game, Observation, ScriptedPlayer, make_player
from coordqa.games.hanabi import engine
from coordqa.games.hanabi.game import Hanabi, as_hanabi
from coordqa.scenarios.builder import ScenarioBuilder
from coordqa.scenarios.hanabi_solvers import (
    Situation,
    card_text,
    ec_question,
    jp_best_action,
    off_convention_moves,
    situation,
    stack_limits,
    tom_question,
)
from coordqa.scenarios.model import Scenario, ScenarioQuestions, ScenarioRejected

PLAYERS = ("hanabi-convention", "hanabi-convention")
"""Who plays the candidate games: the convention bot in both seats, because the rules text says
both players have followed the conventions on every move (a state whose history breaks them is
rejected; v1 and v1.1 also drew games with a Walton-Rivers rule agent in one seat)."""
MAX_TURNS = 100
"""A two-player Hanabi game ends within about 90 moves; this bounds the candidate loop."""
EC_ORDER = ("certain_play", "useless", "unseen_copies", "partner_critical", "max_score")
"""The EC kinds a candidate's default EC question rotates through."""


class HanabiBuilder(ScenarioBuilder):
    """EC, ToM and JP questions for two-player Hanabi states."""

    game = "hanabi"
    version = "3"
    lookup_kinds: ClassVar[Mapping[str, str]] = {
        "certain_play": "the card's counted list, against 'Only X can be played' (one comparison)",
    }
    lookup_since: ClassVar[Mapping[str, int]] = {"certain_play": 3}
    """Versions 1 and 2 printed each card's list from the hints alone: whether the card is
    certainly playable took counting the stacks, discards and the partner's hand."""

    def questions(self, game: Game, scenario: Scenario) -> ScenarioQuestions:
        """Build the three questions; reject states whose answers are not clear.

        Raises:
            ScenarioRejected: the state is not usable (not the player's turn, no partner move
                yet, a clue that would mislead) or a solver finds no clear answer.
        """
        sit = situation(as_hanabi(game), scenario.snapshot, scenario.player)
        broken = sit.broken_marks()
        if broken:
            raise ScenarioRejected(f"play clues mark unplayable cards: {broken}")
        gaps = sit.partner_knowledge_gaps()
        if gaps:
            raise ScenarioRejected(f"the partner knows more than her list shows: {gaps}")
        ec = ec_question(sit, scenario.kinds.get("EC", "useless"))
        tom = tom_question(sit, scenario.kinds.get("ToM", "reveal_play"))
        jp, _ = jp_best_action(sit)
        off = off_convention_moves(scenario.snapshot)
        if off:
            raise ScenarioRejected(f"the history breaks the conventions it claims: {off[0]}")
        return ScenarioQuestions(ec, tom, jp)

    def candidates(self, seed: int) -> Iterator[Scenario]:
        """Every state of one seeded game after the partner's first move (at most ~90)."""
        names = PLAYERS
        game = Hanabi(seed=seed)
        players = [_scripted(name) for name in names]
        for index, player in enumerate(players):
            player.reset(game.seat_view(index), index, seed + index)
        for _ in range(MAX_TURNS):
            if game.is_terminal():
                return
            me = game.state.cur_player()
            if game.last_action(1 - me) is not None:
                yield _candidate(game, me, seed, names)
            action = players[me].choose(Observation.of(game, me))
            result = game.step({me: action})
            for index, player in enumerate(players):
                player.observe(game.seat_view(index), index, result)


def _scripted(name: str) -> ScriptedPlayer:
    """A scripted Hanabi player (candidate games are played synchronously)."""
    player = make_player(name, "hanabi")
    if not isinstance(player, ScriptedPlayer):
        raise ConfigError(f"{name!r} is not a scripted player; PLAYERS needs scripted players")
    return player


def _candidate(game: Hanabi, me: int, seed: int, names: tuple[str, str]) -> Scenario:
    """The scenario of the current state, with question kinds picked from its features."""
    snapshot = game.snapshot()
    steps = len(snapshot["moves"])
    sit = situation(game, snapshot, me)
    last = game.turns[-1]
    tom = "infer_last" if last.player != me and last.card is None else "reveal_play"
    return Scenario(
        scenario_id=f"hanabi-s{seed}-t{steps}",
        game="hanabi",
        layout="default",
        player=me,
        snapshot=snapshot,
        kinds={"EC": _ec_spec(sit, seed + steps), "ToM": tom, "JP": "best_action"},
        reached_by={"seed": seed, "players": list(names), "steps": steps},
    )


def ec_specs(sit: Situation) -> list[str]:
    """Every EC question worth asking at this state, one kind after another (EC_ORDER)."""
    clued = [i for i, c in enumerate(sit.clued[0]) if c]
    own = range(len(sit.view.own_possible))
    specs = [f"certain_play:{i}" for i in clued]
    if any(sit.surely_useless(i) for i in own) or clued:
        specs.append("useless")
    counted = _counted_card(sit)
    if counted is not None:
        specs.append(f"unseen_copies:{counted}")
    critical = _critical_card(sit)
    if critical is not None:
        specs.append(f"partner_critical:{critical}")
    if sum(stack_limits(sit.view.board)) < len(engine.COLORS) * len(engine.RANKS):
        specs.append("max_score")
    return specs


def _ec_spec(sit: Situation, turn: int) -> str:
    """The default EC question of a candidate: the kinds take turns, by turn number."""
    specs = ec_specs(sit)
    for offset in range(len(EC_ORDER)):
        kind = EC_ORDER[(turn + offset) % len(EC_ORDER)]
        matching = [s for s in specs if s.partition(":")[0] == kind]
        if matching:
            return matching[turn % len(matching)]
    return "useless"


def _counted_card(sit: Situation) -> str | None:
    """The still-needed partner card whose count needs the most sources (stack, discards, hand)."""
    board = sit.view.board
    hand = sit.view.partner_hand
    scored = [
        (board.discarded(c) + hand.count(c) + (c[1] < board.fireworks[c[0]]), -i, c)
        for i, c in enumerate(hand)
        if c[1] < 4
    ]
    if not scored:
        return None
    best = max(scored)
    return card_text(best[2]) if best[0] >= 2 else None


def _critical_card(sit: Situation) -> str | None:
    """A partner card whose criticality needs the discard pile: critical non-5s first."""
    board = sit.view.board
    hand = sit.view.partner_hand
    critical = [i for i, c in enumerate(hand) if board.critical(c) and c[1] < 4]
    half_gone = [i for i, c in enumerate(hand) if board.discarded(c) and not board.critical(c)]
    fives = [i for i, c in enumerate(hand) if c[1] == 4]
    for group in (critical, half_gone, fives):
        if group:
            return str(group[0])
    return None


BUILDER = HanabiBuilder()
"""The Hanabi question builder (registered in :data:`~coordqa.scenarios.builder.BUILDERS`)."""
