"""The prompt texts of the LLM agents: action, ToM, verifier, HM hypothesis/prediction/plan.

The action call reuses the game's QA JP directive (its profile's ``qa_directives``) and the QA
layout (:mod:`coordqa.prompts`), so an agent's action choice is asked like a CoordinationQA
joint-planning question of that game: system = directive, user = game description, assistant =
acknowledgement, user = state and lettered actions. The directive is the game's own words, which
time the partner's move as the game is played (Hanabi, turn-based: "on their next turn"; the
others: "at the same time"). The ``paper`` preset's answer-only format (its Overcooked prompt)
asks for ``Action: <action>`` with no explanation, timed by the game's ``turn_based``. HM's
prediction call reuses the game's ToM directive the same way. Only what the QA track has no
text for lives here.

Texts sent in every game say nothing game-specific: per-game wording (the ToM answer format,
the verifier's safety example) comes from the game's profile (:mod:`coordqa.games.profile`).

Keep the word "Verification" out of every prompt but the verifier's: the offline ``scripted``
model answers any prompt containing it with a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from coordqa.choices import format_options
from coordqa.directives import timing_clause
from coordqa.games.base import game_profile
from coordqa.llm import Message
from coordqa.prompts import ACKNOWLEDGEMENT, MARKERS

ANSWER_ONLY_DIRECTIVE = (
    "You are playing a cooperative game with a partner. You will be given the rules, then the "
    "current state of a game in progress and the actions you can take now, lettered. Choose "
    "the action that does the most for the shared goal, taking into account what your partner "
    "is likely to do {timing}.\n"
    "Reply with one line only, in exactly this format:\n"
    "Action: <one of the available actions>\n"
    "Do not explain your choice."
)
"""The ``paper`` preset's answer-only action directive; ``{timing}`` is the turn clause."""


def action_directive(game_name: str, turn_based: bool, answer_only: bool) -> str:
    """The system prompt of the action call in ``game_name``.

    The game's JP directive as the game words it (its profile's ``qa_directives``, which state
    its timing), or the paper's answer-only directive with the clause of the game's timing
    (``turn_based``).
    """
    if answer_only:
        return ANSWER_ONLY_DIRECTIVE.format(timing=timing_clause(turn_based))
    return game_profile(game_name).qa_directives["JP"]


TOM_DIRECTIVE = (
    "You are the Theory of Mind module of an agent playing a cooperative game with a partner. "
    "You will be given the rules, then the current state from your point of view and your "
    "partner's last action. Interpret why your partner took that action and state what your "
    "partner needs from you now. Be brief: two sentences in total.\n"
    "Reply in exactly this format:\n{format}"
)
"""System prompt of CAC's Theory of Mind call; ``{format}`` is the game's answer format."""

TOM_FORMAT = (
    "Partner Action Explanation: <one sentence on why your partner took their last action>\n"
    "Partner Needs: <one sentence on what your partner needs you to do next>"
)
"""The ToM answer format of games whose profile gives none (``GameProfile.agents.tom_format``)."""

VERIFIER_DIRECTIVE = """\
You are the Verifier of an agent playing a cooperative game with a partner. You will be given \
the rules, the current state, the legal actions and the action the agent proposes. Check the \
proposed action for:
1. Rule following: it is one of the legal actions and does what the agent intends.
2. Safety: it must not end the game or lose it immediately{example}.
Answer in 4-5 sentences, then end with exactly one final line:
Verification: Okay
or
Verification: Not Okay"""
"""System prompt of CAC's verifier (the paper found it works best as a system prompt): the
paper's two criteria, rule following and safety; ``{example}`` is the game's safety example
(``GameProfile.agents.verifier_example``), or nothing."""

HYPOTHESIS_DIRECTIVE_WITHOUT_TOM = (
    "You are the hypothesis module of an agent playing a cooperative game with a partner. From "
    "what has happened so far, write one hypothesis about which goals will earn the team the "
    "most reward from now on, one you can test by pursuing them. If earlier hypotheses are "
    "listed with their scores (higher means they earned more reward), refine the best of them "
    "rather than start from nothing.\n"
    "Reply in exactly this format:\nHypothesis: <one or two sentences>"
)
"""System prompt of HM's HE + HR hypothesis call: "w/o Mind Prompting" (the paper's section 5,
"removing ToM-specific prompting"), so the hypothesis is about what earns reward, not about the
partner's mind."""

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
    "{given}, decide what strategy to take next and why.\n"
    "Reply in exactly this format:\nPlan: <your strategy and why, in one or two sentences>"
)
"""System prompt of the high-level planner (Hypothetical Minds, eq. 3: z = LLM(M, h*)), whose
plan the subgoal module turns into actions; ``{given}`` is what the plan is conditioned on
(:data:`PLAN_CONDITIONS`)."""

SUBGOAL_DIRECTIVE = (
    "You are the subgoal module of an agent playing a cooperative game with a partner. Given "
    "the state and the agent's plan, list the next 3 to 6 actions that carry the plan out, in "
    "order, each copied exactly from the available actions (later steps may use actions that "
    "will become available).\n"
    "Reply in exactly this format:\nSubgoals:\n1. <action>\n2. <action>\n3. <action>"
)
"""System prompt of the subgoal module (eq. 4: g = LLM(O, M, z)), "usually 3-6" subgoals."""

PlanCondition = Literal["partner", "none", "hypothesis"]
"""What a plan rests on: HM's hypothesis about the partner's strategy, nothing (PlanReAct, no
ToM module), or HE + HR's hypothesis in use (no ToM wording)."""

PLAN_CONDITIONS: dict[PlanCondition, tuple[str, str]] = {
    "partner": ("the state and what your partner's strategy appears to be",
                "Your partner's observed strategy"),
    "none": ("the state", ""),
    "hypothesis": ("the state and the hypothesis in use", "Hypothesis in use"),
}  # fmt: skip
"""Per plan condition: the directive's ``{given}``, and the label of the line that states it in
the question ('' for none)."""

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
    "again in exactly this format:\n{format}\nThe letter must be one of: {letters}."
)
"""The user turn that asks the action model once more after an unreadable reply."""

LABEL_REMINDER = (
    "Your reply could not be read ({problem}). Reply again in exactly this format:\n{format}"
)
"""The user turn that asks a free-text call (ToM, hypothesis, plan...) once more."""

REMINDER_FORMATS = {
    False: "Explanation: <one sentence>\nAction: <one letter>",
    True: "Action: <one letter>",
}
"""The reply format the reminder restates, by ``answer_only``."""


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


def action_messages(
    game_name: str,
    game_description: str,
    memory: str,
    options: Sequence[str],
    *,
    turn_based: bool = False,
    answer_only: bool = False,
) -> list[Message]:
    """The action call: the QA track's JP layout over the agent's memory."""
    question = f"{memory.strip()}\n\n{MARKERS['JP']}\n{format_options(options)}"
    directive = action_directive(game_name, turn_based, answer_only)
    return conversation(directive, game_description, question)


def tom_messages(game_name: str, game_description: str, memory: str) -> list[Message]:
    """CAC's Theory of Mind call over the working and episodic memory."""
    directive = TOM_DIRECTIVE.format(format=game_profile(game_name).agents.tom_format or TOM_FORMAT)
    return conversation(directive, game_description, memory)


def verifier_directive(game_name: str) -> str:
    """The verifier's system prompt for ``game_name``."""
    return VERIFIER_DIRECTIVE.format(example=game_profile(game_name).agents.verifier_example)


def verifier_messages(
    game_name: str,
    game_description: str,
    memory: str,
    options: Sequence[str],
    proposal: str,
    reason: str,
) -> list[Message]:
    """CAC's verifier call: state, legal actions, the proposed action's text and its reason.

    ``reason`` is the action reply's ``Explanation:`` section ('' when it has none), never its
    ``Action:`` line: the verifier sees the actions unlettered, so a letter would name nothing.
    """
    question = (
        f"{memory.strip()}\n\nLegal actions:\n{bullets(options)}\n\nProposed action: {proposal}\n"
        f"Reason given: {reason.strip() or 'none'}"
    )
    return conversation(verifier_directive(game_name), game_description, question)


def reminder_message(problem: str, letters: str, answer_only: bool = False) -> Message:
    """The format reminder for one re-ask of the action model."""
    text = FORMAT_REMINDER.format(
        problem=problem, format=REMINDER_FORMATS[answer_only], letters=letters
    )
    return Message("user", text)


def label_reminder(problem: str, reply_format: str) -> Message:
    """The reminder for one re-ask of a free-text call: why, then its format restated."""
    return Message("user", LABEL_REMINDER.format(problem=problem, format=reply_format))


def hypothesis_messages(
    game_description: str,
    memory: str,
    earlier: Sequence[tuple[str, float]],
    mind_prompting: bool = True,
) -> list[Message]:
    """HM hypothesis generation, showing earlier hypotheses (text, value) to refine.

    Without ``mind_prompting`` (HE + HR) the call is worded without Theory of Mind.
    """
    parts = [memory.strip()]
    if earlier:
        listed = bullets([f"(score {value:.2f}) {text}" for text, value in earlier])
        about = " about your partner" if mind_prompting else ""
        parts.append(f"Earlier hypotheses{about}, best first:\n{listed}")
    directive = HYPOTHESIS_DIRECTIVE if mind_prompting else HYPOTHESIS_DIRECTIVE_WITHOUT_TOM
    return conversation(directive, game_description, "\n\n".join(parts))


def predict_messages(
    game_name: str,
    game_description: str,
    memory: str,
    hypothesis: str,
    question: str,
    options: Sequence[str],
) -> list[Message]:
    """HM prediction: a lettered ToM question of the game about the partner's next behaviour."""
    text = (
        f"{memory.strip()}\n\nAssume this hypothesis about your partner is true: {hypothesis}\n\n"
        f"{question}\n\n{MARKERS['ToM']}\n{format_options(options)}"
    )
    directive = game_profile(game_name).qa_directives["ToM"]
    return conversation(directive, game_description, text)


def plan_directive(condition: PlanCondition) -> str:
    """The plan call's system prompt for plans that rest on ``condition``."""
    return PLAN_DIRECTIVE.format(given=PLAN_CONDITIONS[condition][0])


def plan_messages(
    game_description: str,
    memory: str,
    hypothesis: str | None,
    options: Sequence[str],
    condition: PlanCondition = "partner",
) -> list[Message]:
    """The high-level planner (HM, PlanReAct), conditioned on ``hypothesis``.

    ``condition`` says what the hypothesis is (:data:`PLAN_CONDITIONS`): HM's about the
    partner's strategy, none (PlanReAct, which has no ToM module: no such line), or HE + HR's
    hypothesis in use.
    """
    label = PLAN_CONDITIONS[condition][1]
    stated = f"{label}: {hypothesis or 'not known yet'}\n\n" if label else ""
    text = (
        f"{memory.strip()}\n\n{stated}Available actions now:\n{bullets(options)}\n\n"
        "What strategy do you want to take next and why?"
    )
    return conversation(plan_directive(condition), game_description, text)


def subgoal_messages(
    game_description: str, memory: str, plan: str, options: Sequence[str]
) -> list[Message]:
    """The subgoal module: the state and memory, the plan, the available actions."""
    text = (
        f"{memory.strip()}\n\nMy plan: {plan}\n\nAvailable actions now:\n{bullets(options)}"
        "\n\nWhich actions carry out this plan?"
    )
    return conversation(SUBGOAL_DIRECTIVE, game_description, text)


REACT_DIRECTIVE = (
    "You are an agent playing a cooperative game with a partner. Think step by step about the "
    "current state and about your partner's strategy: what your partner has been doing, is "
    "trying to achieve and will do next, and what that means for you. Then list the next 1 to "
    "4 actions to execute, each copied exactly from the available actions (later steps may use "
    "actions that will become available).\n{examples}"
    "Reply in exactly this format:\nThought: <your reasoning about the state and your "
    "partner's strategy, in one to three sentences>\nSubgoals:\n1. <action>\n2. <action>"
)
"""System prompt of the ReAct and Reflexion baselines' call (reason, then subgoals), prompted
"to think about the other agents' strategies" (Hypothetical Minds, E.1); ``{examples}`` are the
game's example responses (:func:`react_directive`)."""


def react_directive(game_name: str) -> str:
    """ReAct's system prompt in ``game_name``, with the game's example responses as few-shot.

    The examples (``GameProfile.agents.react_examples``, coordqa's own for the built-in games)
    come before the reply format, each under ``Example response N:``.
    """
    examples = game_profile(game_name).agents.react_examples
    if not examples:
        return REACT_DIRECTIVE.format(examples="")
    shown = "".join(
        f"\nExample response {number}:\n{example}\n"
        for number, example in enumerate(examples, start=1)
    )
    intro = "\nExample responses, from other states of this game:\n"
    return REACT_DIRECTIVE.format(examples=f"{intro}{shown}\n")


def react_messages(
    game_name: str, game_description: str, memory: str, options: Sequence[str]
) -> list[Message]:
    """ReAct: reason about the state and the partner's strategy, then list subgoals."""
    text = f"{memory.strip()}\n\nAvailable actions now:\n{bullets(options)}\n\nWhat next?"
    return conversation(react_directive(game_name), game_description, text)


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


LEVEL_PREDICT_DIRECTIVE = (
    "You are the Theory of Mind module of an agent playing a cooperative game with a partner. "
    "Put yourself in your partner's place: reason only from what your partner can see and "
    "knows (not from what only you can see), and predict what your partner does next.\n"
    "Reply in exactly this format:\nExplanation: <one sentence>\nAnswer: <one letter>"
)
"""System prompt of k-level ToM's prediction of the partner's next behaviour (levels 1 and 2)."""

LEVEL_BELIEF_DIRECTIVE = (
    "You are the Theory of Mind module of an agent playing a cooperative game with a partner. "
    "Put yourself in your partner's place: from what your partner can see and knows, what does "
    "your partner believe you will do next?\n"
    "Reply in exactly this format:\nExplanation: <one sentence>\nAnswer: <one letter>"
)
"""System prompt of level-2 ToM's question: what the partner believes this agent will do."""


def level_predict_messages(
    game_description: str,
    memory: str,
    question: str,
    behaviours: Sequence[str],
    expected_of_me: str | None,
) -> list[Message]:
    """k-level ToM: the partner's next behaviour, lettered; level 2 adds the partner's belief."""
    belief = (
        ""
        if expected_of_me is None
        else f"Your partner believes you will do this next: {expected_of_me}\n\n"
    )
    text = (
        f"{memory.strip()}\n\n{belief}{question}\n\n{MARKERS['ToM']}\n{format_options(behaviours)}"
    )
    return conversation(LEVEL_PREDICT_DIRECTIVE, game_description, text)


def level_belief_messages(
    game_description: str, memory: str, partner: str, options: Sequence[str]
) -> list[Message]:
    """Level-2 ToM: which of this agent's actions the partner expects, lettered."""
    text = (
        f"{memory.strip()}\n\nWhich of your actions does {partner} believe you will take now?"
        f"\n\n{MARKERS['ToM']}\n{format_options(options)}"
    )
    return conversation(LEVEL_BELIEF_DIRECTIVE, game_description, text)


BELIEF_DIRECTIVE = (
    "You are the belief module of an agent playing a cooperative game with a partner. Keep a "
    "short written belief state about the task: the facts that matter, including what your "
    "partner knows and intends. Rewrite it from the current state and your previous belief "
    "(shown in your memory, if you have one). Stay under {limit} characters.\n"
    "Reply in exactly this format, each line filled in:\n{template}\nNotes: <anything else "
    "worth remembering, in one or two sentences>"
)
"""System prompt of the belief update; ``{template}`` lists the game's checkable fact lines."""


def belief_messages(game_description: str, memory: str, template: str, limit: int) -> list[Message]:
    """The belief update: the agent's memory (with its previous belief), the fact template."""
    directive = BELIEF_DIRECTIVE.format(limit=limit, template=template)
    return conversation(directive, game_description, f"{memory.strip()}\n\nUpdate your belief.")


REFLECTION_DIRECTIVE = (
    "You are the self-reflection module of an agent playing a cooperative game with a partner. "
    "You will be told the agent's last plan and what it achieved. Say in one or two sentences "
    "whether it worked, why or why not, and what the next plan should do differently.\n"
    "Reply in exactly this format:\nReflection: <one or two sentences>"
)
"""System prompt of the self-reflection call (HM, PlanReAct, Reflexion)."""


LADDER_DIRECTIVE = (
    "You are playing a cooperative game with a partner. You will be given the rules, then the "
    "current state of a game in progress and a question about what you or your partner know, "
    "with lettered answers. Answer from what each player has seen or been told.\n"
    "Reply in exactly this format:\nExplanation: <one sentence>\nAnswer: <one letter>"
)
"""System prompt of the ToM question ladder's side calls."""
