r"""Scripts for testing and benchmarking agents offline: replies chosen by the call's role.

:class:`RoleScript` is a callable script for ``ScriptedModel`` and, through :meth:`responder`,
for ``coordqa.llm.testing.LocalOpenAIServer``: it recognises which agent call a conversation is
(from its system prompt) and answers with that role's scripted reply, counting calls per role.

>>> from coordqa.llm import Message
>>> script = RoleScript(action="Action: B")
>>> script([Message("system", prompts.verifier_directive("hanabi")), Message("user", "...")])
'The action follows the rules and is safe.\nVerification: Okay'
>>> dict(script.calls)
{'verifier': 1}
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from coordqa.agentic.agents import prompts
from coordqa.agentic.agents.counterfactual import JUDGEMENT_DIRECTIVE, TARGET_DIRECTIVE
from coordqa.errors import ConfigError
from coordqa.games import GAMES, game_profile
from coordqa.llm import Message

Reply = str | Callable[[Sequence[Message]], str]
"""A scripted reply: fixed text, or a function of the conversation."""

DEFAULT_REPLIES: dict[str, str] = {
    "tom": "Partner Action Explanation: my partner is setting up.\nPartner Needs: help.",
    "action": "Explanation: the first action is fine.\nAction: A",
    "reprompt": "Explanation: retrying.\nAction: A",
    "verifier": "The action follows the rules and is safe.\nVerification: Okay",
    "hypothesis": "Hypothesis: my partner repeats its last kind of action.",
    "predict": "Explanation: it repeats itself.\nAnswer: A",
    "plan": "Plan: keep working towards the goal.",
    "subgoals": "Subgoals:\n1. none",
    "react": "Thought: keep working towards the goal.\nSubgoals:\n1. none",
    "target": "Explanation: under it the first action is best.\nAnswer: A",
    "judgement": "Explanation: it would have made no difference.\nAnswer: B",
    "vanilla": "Hypothesis: my partner repeats itself.\nPlan: keep going.\nAnswer: A",
    "partner_predict": "Explanation: it goes on as before.\nAnswer: A",
    "partner_belief": "Explanation: it expects my first option.\nAnswer: A",
    "belief": "Notes: nothing known yet.",
    "reflection": "Reflection: the plan stalled; try another object.",
    "ladder": "Explanation: no clue was given about it.\nAnswer: B",
}
"""What each role answers unless told otherwise."""

ROLES = tuple(DEFAULT_REPLIES)


def role_of(messages: Sequence[Message]) -> str:
    """Which agent call a conversation is, from its system prompt (and reminder turn).

    Raises:
        ConfigError: the conversation is not one the agents make.
    """
    system = messages[0].content if messages and messages[0].role == "system" else ""
    last = messages[-1].content if messages else ""
    games = GAMES.names()
    actions = {
        prompts.action_directive(game, turn_based, answer_only)
        for game in games
        for turn_based in (False, True)
        for answer_only in (False, True)
    }
    if system in actions:
        reminder = prompts.FORMAT_REMINDER.split("(", 1)[0]
        return "reprompt" if reminder in last else "action"  # it may join the user turn
    fixed = {
        **{game_profile(game).qa_directives["ToM"]: "predict" for game in games},
        prompts.HYPOTHESIS_DIRECTIVE: "hypothesis",
        prompts.HYPOTHESIS_DIRECTIVE_WITHOUT_TOM: "hypothesis",
        **{prompts.plan_directive(condition): "plan" for condition in prompts.PLAN_CONDITIONS},
        prompts.SUBGOAL_DIRECTIVE: "subgoals",
        **{prompts.react_directive(game): "react" for game in games},
        TARGET_DIRECTIVE: "target",
        JUDGEMENT_DIRECTIVE: "judgement",
        prompts.VANILLA_DIRECTIVE: "vanilla",
        prompts.LEVEL_PREDICT_DIRECTIVE: "partner_predict",
        prompts.LEVEL_BELIEF_DIRECTIVE: "partner_belief",
        prompts.REFLECTION_DIRECTIVE: "reflection",
        prompts.LADDER_DIRECTIVE: "ladder",
    }
    if system in fixed:
        return fixed[system]
    templates = {
        "tom": prompts.TOM_DIRECTIVE,
        "verifier": prompts.VERIFIER_DIRECTIVE,
        "belief": prompts.BELIEF_DIRECTIVE,
    }
    for role, template in templates.items():
        if system.startswith(template.split("{", 1)[0]):
            return role
    raise ConfigError(f"not an agent conversation; system prompt starts {system[:60]!r}")


class RoleScript:
    """A script that answers each agent call with its role's reply and counts the calls."""

    def __init__(self, **replies: Reply) -> None:
        """Override the default reply of any role (:data:`ROLES`) by keyword."""
        unknown = sorted(set(replies) - set(ROLES))
        if unknown:
            raise ConfigError(f"unknown role(s) {unknown}; roles: {', '.join(ROLES)}")
        self.replies: dict[str, Reply] = {**DEFAULT_REPLIES, **replies}
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, messages: Sequence[Message]) -> str:
        """The reply to ``messages``."""
        role = role_of(messages)
        with self._lock:
            self.calls[role] += 1
        reply = self.replies[role]
        return reply if isinstance(reply, str) else reply(messages)

    def responder(self, body: dict[str, Any], index: int) -> str:
        """The same script as a ``LocalOpenAIServer`` responder (reads the request body)."""
        messages = [Message(m["role"], str(m.get("content") or "")) for m in body["messages"]]
        return self(messages)
