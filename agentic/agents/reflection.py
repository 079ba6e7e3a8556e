"""Self-reflection on the last plan (Hypothetical Minds, collaborative cooking; Reflexion).

Before a planning agent makes a new plan it compares the world with when its last plan was made:
the shared score, and the agent's own actions that have an effect (every action but waiting or
stepping aside: ``wait`` and ``move away`` in Overcooked, ``Wait`` in the Collab games; every
Hanabi move has one). With ``self_reflection`` on, when neither changed, it asks the model (role
``reflection``) whether the last plan worked and what to change; with ``reflect_every_plan`` (the
paper's cooking agent) or in Reflexion it asks after every plan, telling the model what the plan
achieved. The reflection is shown to the next plan call. Each reflection is counted
(``reflections``).
"""

from __future__ import annotations

from typing import Any

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.replies import section
from coordqa.agentic.records import ReflectionPayload
from coordqa.games.seat import SeatView
from coordqa.llm import Reply

NO_EFFECT_PREFIXES = ("wait", "move away", "Wait")
"""Own actions that change nothing in the world (they do not count as progress)."""

Signature = tuple[float, int]


def world_signature(game: SeatView, player: int) -> Signature:
    """What a plan should change: the score and how many effective actions ``player`` made."""
    effective = [a for a in game.last_actions(player) if not a.startswith(NO_EFFECT_PREFIXES)]
    return float(game.score()), len(effective)


def reflection_messages(
    game_description: str,
    memory: str,
    plan: str | None,
    subgoals: list[str],
    before: Signature,
    now: Signature,
) -> list[Any]:
    """The reflection call on the last plan, told what it achieved from ``before`` to ``now``."""
    steps = prompts.bullets(subgoals) if subgoals else "- (none left)"
    if before == now:
        outcome = (
            "nothing I did changed the world: the score is the same and none of my actions had "
            "an effect"
        )
    else:
        outcome = (
            f"the score went from {before[0]:g} to {now[0]:g}, and {now[1] - before[1]} of my "
            "actions had an effect"
        )
    text = (
        f"{memory.strip()}\n\nMy last plan was: {plan or 'none written'}\nIts remaining steps:\n"
        f"{steps}\n\nSince I made that plan, {outcome}. Did the plan work? Why or why not, and "
        "what should I do differently?"
    )
    return prompts.conversation(prompts.REFLECTION_DIRECTIVE, game_description, text)


def read_reflection(reply: Reply) -> tuple[str, ReflectionPayload]:
    """The ``Reflection:`` section of a reply (or its whole text, bounded)."""
    text = section(reply.text, "reflection") or " ".join((reply.text or "").split())[:600]
    return text, ReflectionPayload(reflection=text)
