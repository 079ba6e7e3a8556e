"""The long-term memory text of Overcooked: rules, objective and action vocabulary."""

from __future__ import annotations

from coordqa.games.overcooked.engine import COOK_TIME, DELIVERY_REWARD


def game_description(horizon: int) -> str:
    """The rules as the agent is told them, for an episode of ``horizon`` timesteps."""
    return f"""\
Overcooked is a cooperative cooking game for two chefs, Alice and Bob, who share one kitchen and
one score.

Objective: deliver as many onion soups as possible within {horizon} timesteps. Each delivered
soup earns {DELIVERY_REWARD} points for the team.

How a soup is made:
1. Pick up an onion from an onion dispenser (o0, o1, ...) and place it in a cooker (c0, c1, ...).
2. A cooker holds 3 onions. When the third onion goes in, the cooker turns on by itself and the
   soup cooks for {COOK_TIME} timesteps. Nothing can be added to a cooker that is cooking or
   holds a cooked soup.
3. Pick up a plate from a plate dispenser (p0, ...), go to the cooker with the cooked soup and
   load the soup on the plate.
4. Place the soup for delivery at a delivery location (d0, ...).

A chef carries one item at a time: an onion, a plate, or a soup in a plate. Items can be put on
kitchen counters (k0, k1, ...) and on shared counters (s0, s1, ...), which sit between two
parts of the kitchen and can be reached from both sides: on some layouts the two chefs can only
work together by passing onions and plates across them. Chefs cannot walk through each other:
the other chef's cell is an obstacle.

Distances are counted in grid steps to stand next to an object. "blocked by Bob" means the only
way there goes through Bob's cell; "inaccessible" means there is no way there at all.

Actions (each one takes several timesteps and is carried out automatically, on the shortest path):
- "pick up onion from oN", "pick up plate from pN", "pick up onion/plate/soup from kN or sN"
- "place onion in cN", "load soup on plate from cN" (waits at cN until the soup is cooked)
- "place soup for delivery in dN"
- "place onion/plate/soup on kN or sN"
- "wait" (stay one timestep), "move away" (step away from the other chef)
Only actions that make sense for what you hold are offered. An action that becomes impossible
(the item is gone, the way is blocked) is abandoned and you choose again.
"""
