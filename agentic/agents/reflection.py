"""Self-reflection on the last plan (Hypothetical Minds, collaborative cooking; Reflexion).

Before a planning agent makes a new plan it compares the world with when its last plan was made:
the shared score, and the agent's own actions that have an effect (every action but waiting or
stepping aside: ``wait`` and ``move away`` in Overcooked, ``Wait`` in the Collab games; every
Hanabi move has one). With ``self_reflection`` on, when neither changed, it asks the model (role
``reflection``) whether the last plan worked and what to change (the paper's cooking agent, D.6:
it reflects when an action plan did not change the world); with ``reflect_every_plan`` or in
Reflexion it asks after every plan. The call is told what the plan achieved: the reward during
the plan and the state before and after it (Reflexion's outcome in the Hypothetical Minds paper,
E.2). The reflection is shown to the next plan call. Each
reflection is counted (``reflections``); a reply without its ``Reflection:`` line is asked once
more, then there is no reflection (counted per role).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.replies import section
from coordqa.agentic.records import ReflectionPayload
from coordqa.games.seat import SeatView
from coordqa.llm import Reply

NO_EFFECT_PREFIXES = ("wait", "move away", "Wait")
"""Own actions that change nothing in the world (they do not count as progress)."""

Signature = tuple[float, int]
"""What a plan should change: the score and how many effective actions the agent made."""


@dataclass(frozen=True)
class PlanMoment:
    """The world when a plan was made (or now), as a reflection compares it."""

    signature: Signature
    """The score and the agent's effective actions."""
    state: str
    """The state as the agent's memory showed it."""


def world_signature(game: SeatView, player: int) -> Signature:
    """What a plan should change: the score and how many effective actions ``player`` made."""
    effective = [a for a in game.last_actions(player) if not a.startswith(NO_EFFECT_PREFIXES)]
    return float(game.score()), len(effective)


def reflection_messages(
    game_description: str,
    memory: str,
    plan: str | None,
    subgoals: list[str],
    before: PlanMoment,
    now: PlanMoment,
) -> list[Any]:
    """The reflection call on the last plan: the state before it and now, and its outcome.

    Reflexion's outcome (Hypothetical Minds, E.2): "the reward during the plan, and salient
    state information pre and post plan". ``memory`` is the agent's memory now (it opens with
    the state now); ``before`` holds the state as the agent's memory showed it when it planned.
    """
    steps = prompts.bullets(subgoals) if subgoals else "- (none left)"
    (score_before, acted_before), (score_now, acted_now) = before.signature, now.signature
    if before.signature == now.signature:
        outcome = (
            "Reward during the plan: 0. Nothing I did changed the world: the score is the same "
            "and none of my actions had an effect."
        )
    else:
        outcome = (
            f"Reward during the plan: {score_now - score_before:g} (the score went from "
            f"{score_before:g} to {score_now:g}); {acted_now - acted_before} of my actions had an "
            "effect."
        )
    text = (
        f"State when I made the plan:\n{before.state}\n\nState now:\n{memory.strip()}\n\n"
        f"My last plan was: {plan or 'none written'}\nIts remaining steps:\n{steps}\n\n"
        f"{outcome} Did the plan work? Why or why not, and what should I do differently?"
    )
    return prompts.conversation(prompts.REFLECTION_DIRECTIVE, game_description, text)


def read_reflection(reply: Reply) -> tuple[str | None, ReflectionPayload]:
    """The ``Reflection:`` section of a reply; None (unreadable) when it has none."""
    text = section(reply.text, "reflection")
    return text, ReflectionPayload(reflection=text or "")
