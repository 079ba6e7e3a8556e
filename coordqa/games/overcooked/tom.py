"""What the agents' theory-of-mind features ask of Overcooked: belief facts and behaviours.

Overcooked's part of its :class:`~coordqa.games.agent_profile.AgentProfile`, written against the
contracts of :mod:`coordqa.games.agent_profile` and read from a seat's view only:

- :func:`overcooked_facts`: what the partner holds (nothing, onion, dish or soup), and the
  object the partner's action in progress ends at (checked only while the engine runs one:
  partners that move by primitives, such as the BC models and ``greedy_human``, have no target
  the engine knows);
- :class:`OvercookedBehaviour`: the kind of the partner's next completed object action (picks
  up an onion, loads a soup onto a plate, ...), read from the partner's action history, so it
  works with partners that move by primitives too. "wait" and "move away" are not behaviours:
  they change nothing.

Overcooked is fully observable: it has no ToM question ladder.
"""

from __future__ import annotations

from coordqa.games.agent_profile import BeliefFact, PartnerBehaviour
from coordqa.games.base import StepResult
from coordqa.games.names import PLAYER_NAMES
from coordqa.games.overcooked.seat import kitchen
from coordqa.games.seat import SeatView

__all__ = ["OVERCOOKED_KINDS", "OvercookedBehaviour", "overcooked_facts"]


def overcooked_facts(game: SeatView, player: int) -> list[BeliefFact]:
    """What the partner holds, and the target of the action it runs (if any)."""
    partner = PLAYER_NAMES[1 - player]
    seen = kitchen(game)
    held = seen.state.players[1 - player].held_object
    truth = "nothing" if held is None else str(held.name)
    task = seen.partner_task
    target = None if task is None or task.target is None else task.target
    return [
        BeliefFact(f"{partner} holds", "nothing, onion, dish or soup", truth),
        BeliefFact(
            f"{partner}'s target", "<the object they are heading for, e.g. o0 or c0>", target
        ),
    ]


OVERCOOKED_KINDS: tuple[tuple[str, str], ...] = (
    ("pick up onion", "picks up an onion"),
    ("pick up plate", "picks up a plate"),
    ("pick up soup", "picks up a soup from a counter"),
    ("place onion in", "places an onion in a cooker"),
    ("load soup on plate", "loads a soup onto a plate"),
    ("place soup for delivery", "delivers a soup"),
    ("place onion on", "puts an onion on a counter"),
    ("place plate on", "puts a plate on a counter"),
    ("place soup on", "puts a soup on a counter"),
)
"""Action-text prefix -> the behaviour kind it is (the Overcooked action vocabulary)."""


class OvercookedBehaviour(PartnerBehaviour):
    """The kind of the partner's next completed object action."""

    def __init__(self) -> None:
        """Track how much of the partner's history has been seen."""
        self._seen = 0

    def reset(self, game: SeatView, player: int) -> None:
        """Start from the partner's history as it is now."""
        self._seen = len(game.last_actions(1 - player))

    def question(self, player: int) -> str:
        """What the partner's next object action is."""
        return f"What will {PLAYER_NAMES[1 - player]} do next?"

    def options(self, game: SeatView, player: int) -> list[str]:
        """The nine kinds of object action."""
        partner = PLAYER_NAMES[1 - player]
        return [f"{partner} {kind}" for _, kind in OVERCOOKED_KINDS]

    def observed(self, game: SeatView, player: int, result: StepResult) -> list[str]:
        """The partner's object actions that took effect since the last call."""
        history = game.last_actions(1 - player)
        new, self._seen = history[self._seen :], len(history)
        partner = PLAYER_NAMES[1 - player]
        kinds = [_kind(action) for action in new]
        return [f"{partner} {kind}" for kind in kinds if kind is not None]


def _kind(action: str) -> str | None:
    return next((kind for prefix, kind in OVERCOOKED_KINDS if action.startswith(prefix)), None)


REACT_EXAMPLES = (
    "Thought: Bob keeps carrying onions to the pot c0, so his strategy is to fill it. The soup "
    "will need a plate when it is cooked, and nobody is fetching one.\nSubgoals:\n"
    "1. pick up plate from p0\n2. wait\n3. load soup on plate from c0\n"
    "4. place soup for delivery in d0",
    "Thought: Bob holds a plate and waits beside the pot, so he will serve this soup. The pot "
    "will then be empty and needs three onions; I bring them while he delivers.\nSubgoals:\n"
    "1. pick up onion from o0\n2. place onion in c0\n3. pick up onion from o1\n"
    "4. place onion in c0",
    "Thought: Bob and I block each other in the corridor, and he waits whenever I stand in "
    "his way. I step aside so he can reach the pot, then fetch an onion.\nSubgoals:\n"
    "1. move away\n2. pick up onion from o1\n3. place onion in c0",
)
"""Three example responses for HM's ReAct baseline in Overcooked (coordqa's own, seat Alice)."""
