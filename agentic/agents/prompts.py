"""The prompt texts of the LLM agents: ToM, verifier, HM hypothesis/prediction/plan, reminders.

The action call reuses the QA track's JP directive and layout (:mod:`coordqa.prompts`), so an
agent's action choice is asked exactly like a CoordinationQA joint-planning question: system =
directive, user = game description, assistant = acknowledgement, user = state and lettered
actions. HM's prediction call reuses the ToM directive the same way. Only what the QA track has no
text for lives here.

Keep the word "Verification" out of every prompt but the verifier's: the offline ``scripted``
model answers any prompt containing it with a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from coordqa.choices import format_options
from coordqa.llm import Message
from coordqa.prompts import ACKNOWLEDGEMENT, DIRECTIVES, MARKERS

TOM_DIRECTIVE = (
    "You are the Theory of Mind module of an agent playing a cooperative game with a partner. "
    "You will be given the rules, then the current state from your point of view and your "
    "partner's last action. Interpret why your partner took that action and state what your "
    "partner needs from you now. Be brief: two sentences in total.\n"
    "Reply in exactly this format:\n{format}"
)
"""System prompt of CAC's Theory of Mind call; ``{format}`` is the game's answer format."""

TOM_FORMATS = {
    "hanabi": (
        "Partner Action Explanation: <one sentence on why your partner made their last move>\n"
        "Clue Suggestion: <which colour or rank you should reveal to your partner, and why>"
    ),
}
"""Per game, the ToM answer format (the paper's Hanabi format); others use :data:`TOM_FORMAT`."""

TOM_FORMAT = (
    "Partner Action Explanation: <one sentence on why your partner took their last action>\n"
    "Partner Needs: <one sentence on what your partner needs you to do next>"
)
"""The ToM answer format of games without a specific one."""

VERIFIER_DIRECTIVE = """\
You are the Verifier of an agent playing a cooperative game with a partner. You will be given \
the rules, the current state, the legal actions and the action the agent proposes. Check the \
proposed action for:
1. Rule following: it is one of the legal actions and does what the agent intends.
2. Safety: it must not end the game or lose it immediately (for example, playing a card that \
may not be playable when the team has one life left), and it must not waste a resource the \
team needs.
Answer in 4-5 sentences, then end with exactly one final line:
Verification: Okay
or
Verification: Not Okay"""
"""System prompt of CAC's verifier (the paper found it works best as a system prompt)."""

HYPOTHESIS_DIRECTIVE = (
    "You are the Theory of Mind module of an agent playing a cooperative game with a partner. "
    "From the partner's observed behaviour, write one hypothesis about the partner's strategy, "
    "habits or intentions that would let you predict what the partner does next. If earlier "
    "hypotheses are listed with their scores (higher means they predicted better), refine the "
    "best of them rather than start from nothing.\n"
    "Reply in exactly this format:\nHypothesis: <one or two sentences>"
)
"""System prompt of HM's hypothesis generation call."""

PLAN_DIRECTIVE = (
    "You are the planning module of an agent playing a cooperative game with a partner. Given "
    "the state and what your partner's strategy appears to be, decide what strategy to take "
    "next and why, then list the next 1 to 4 actions to execute, each copied exactly from the "
    "available actions (later steps may use actions that will become available).\n"
    "Reply in exactly this format:\nPlan: <your strategy and why, in one or two sentences>\n"
    "Subgoals:\n1. <action>\n2. <action>"
)
"""System prompt of HM's high-level plan call (plan plus subgoal sequence in one call)."""

VANILLA_DIRECTIVE = (
    "You are an agent playing a cooperative game with a partner. In one answer: form a "
    "hypothesis about your partner's strategy from their observed behaviour, predict your "
    "partner's next behaviour, and plan your own next actions.\n"
    "Reply in exactly this format:\nHypothesis: <one or two sentences>\n"
    "Plan: <your strategy, one sentence>\nSubgoals:\n1. <action copied from the available "
    "actions>\n2. <action>\nAnswer: <the letter of your partner's predicted next behaviour>"
)
"""System prompt of HM's Vanilla Mind Prompting variant (all ToM steps in one call)."""

FORMAT_REMINDER = (
    "Your reply could not be read as exactly one of the lettered actions ({problem}). Reply "
    "again in exactly this format:\nExplanation: <one sentence>\nAction: <one letter>\n"
    "The letter must be one of: {letters}."
)
"""The user turn that asks the action model once more after an unreadable reply."""


def conversation(system: str, game_description: str, question: str) -> list[Message]:
    """System directive, the game description acknowledged (the QA layout), then ``question``."""
    return [
        Message("system", system),
        Message("user", game_description.strip()),
        Message("assistant", ACKNOWLEDGEMENT),
        Message("user", question.strip()),
    ]


def bullets(items: Sequence[str]) -> str:
    """Unlettered ``- item`` lines (lists the model reads but does not answer with a letter)."""
    return "\n".join(f"- {item}" for item in items)


def action_messages(game_description: str, memory: str, options: Sequence[str]) -> list[Message]:
    """The action call: the QA track's JP directive and layout over the agent's memory."""
    question = f"{memory.strip()}\n\n{MARKERS['JP']}\n{format_options(options)}"
    return conversation(DIRECTIVES["JP"], game_description, question)


def tom_messages(game_name: str, game_description: str, memory: str) -> list[Message]:
    """CAC's Theory of Mind call over the working and episodic memory."""
    directive = TOM_DIRECTIVE.format(format=TOM_FORMATS.get(game_name, TOM_FORMAT))
    return conversation(directive, game_description, memory)


def verifier_messages(
    game_description: str, memory: str, options: Sequence[str], proposal: str, reason: str
) -> list[Message]:
    """CAC's verifier call: state, legal actions and the proposed action with its reason."""
    question = (
        f"{memory.strip()}\n\nLegal actions:\n{bullets(options)}\n\nProposed action: {proposal}\n"
        f"Reason given: {reason.strip() or 'none'}"
    )
    return conversation(VERIFIER_DIRECTIVE, game_description, question)


def reminder_message(problem: str, letters: str) -> Message:
    """The format reminder for one re-ask of the action model."""
    return Message("user", FORMAT_REMINDER.format(problem=problem, letters=letters))


def hypothesis_messages(
    game_description: str, memory: str, earlier: Sequence[tuple[str, float]]
) -> list[Message]:
    """HM hypothesis generation, showing earlier hypotheses (text, value) to refine."""
    parts = [memory.strip()]
    if earlier:
        listed = bullets([f"(score {value:.2f}) {text}" for text, value in earlier])
        parts.append(f"Earlier hypotheses about your partner, best first:\n{listed}")
    return conversation(HYPOTHESIS_DIRECTIVE, game_description, "\n\n".join(parts))


def predict_messages(
    game_description: str, memory: str, hypothesis: str, question: str, options: Sequence[str]
) -> list[Message]:
    """HM prediction: a lettered ToM question about the partner's next behaviour."""
    text = (
        f"{memory.strip()}\n\nAssume this hypothesis about your partner is true: {hypothesis}\n\n"
        f"{question}\n\n{MARKERS['ToM']}\n{format_options(options)}"
    )
    return conversation(DIRECTIVES["ToM"], game_description, text)


def plan_messages(
    game_description: str, memory: str, hypothesis: str | None, options: Sequence[str]
) -> list[Message]:
    """HM high-level plan and subgoals, conditioned on the best hypothesis."""
    strategy = hypothesis or "not known yet"
    text = (
        f"{memory.strip()}\n\nYour partner's observed strategy: {strategy}\n\n"
        f"Available actions now:\n{bullets(options)}\n\n"
        "What strategy do you want to take next and why?"
    )
    return conversation(PLAN_DIRECTIVE, game_description, text)


def vanilla_messages(
    game_description: str,
    memory: str,
    question: str,
    behaviours: Sequence[str],
    options: Sequence[str],
) -> list[Message]:
    """HM's Vanilla Mind Prompting: hypothesis, prediction and plan in one call."""
    text = (
        f"{memory.strip()}\n\nAvailable actions now:\n{bullets(options)}\n\n{question}\n\n"
        f"{MARKERS['ToM']}\n{format_options(behaviours)}"
    )
    return conversation(VANILLA_DIRECTIVE, game_description, text)
