"""HM self-reflection (Hypothetical Minds, collaborative cooking): a plan that changed nothing.

With ``self_reflection`` on, before HM makes a new plan it checks whether the world changed since
its last plan was made: the shared score, and the agent's own actions that have an effect (every
action but waiting or stepping aside: ``wait`` and ``move away`` in Overcooked, ``Wait`` in the
Collab games; every Hanabi move has one). When neither changed, it asks the model (role
``reflection``) whether the last plan worked and what to change, and shows that reflection to the
plan call. Each reflection is counted (``reflections``).
"""

from __future__ import annotations

from typing import Any

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.replies import section
from coordqa.games.seat import SeatView
from coordqa.llm import Reply
from coordqa.records import ReflectionPayload

NO_EFFECT_PREFIXES = ("wait", "move away", "Wait")
"""Own actions that change nothing in the world (they do not count as progress)."""

Signature = tuple[float, int]


def world_signature(game: SeatView, player: int) -> Signature:
    """What a plan should change: the score and how many effective actions ``player`` made."""
    effective = [a for a in game.last_actions(player) if not a.startswith(NO_EFFECT_PREFIXES)]
    return float(game.score()), len(effective)


def reflection_messages(
    game_description: str, memory: str, plan: str | None, subgoals: list[str]
) -> list[Any]:
    """The reflection call (kept here: only HM's reflection uses it)."""
    steps = prompts.bullets(subgoals) if subgoals else "- (none left)"
    text = (
        f"{memory.strip()}\n\nMy last plan was: {plan or 'none written'}\nIts remaining steps:\n"
        f"{steps}\n\nSince I made that plan, nothing I did changed the world: the score is the "
        "same and none of my actions had an effect. Did the plan work? Why not, and what should "
        "I do differently?"
    )
    return prompts.conversation(prompts.REFLECTION_DIRECTIVE, game_description, text)


def read_reflection(reply: Reply) -> tuple[str, ReflectionPayload]:
    """The ``Reflection:`` section of a reply (or its whole text, bounded)."""
    text = section(reply.text, "reflection") or " ".join((reply.text or "").split())[:600]
    return text, ReflectionPayload(reflection=text)
