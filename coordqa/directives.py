"""The wording of the CoordinationQA directives: what a model is asked to do per question type.

The texts are coordqa's own. Each asks for a short explanation followed by one final line,
``Answer: <letter>`` (EC, ToM) or ``Action: <letter>`` (JP), which :mod:`coordqa.choices` reads
first. A game's profile holds the wording its questions are asked with
(``GameProfile.qa_directives``, by default :data:`DIRECTIVES`, or :func:`directives` of its
timing); :mod:`coordqa.prompts` lays the messages out. The agents ask their action call with the
game's JP directive as it is, so the game's own wording states its timing to them too
(:func:`timing_problem` is what the conformance kit checks it by). Texts only: this module
imports nothing of coordqa, so game profiles can build on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_REPLY_FORMAT = """\
Reply in exactly this format:
Explanation: <your reasoning, in a few sentences>
{label}: <one letter>
The {label_lower} must be the letter of exactly one of the available {kind}, for example A."""

SIMULTANEOUS_CLAUSE = "at the same time"
"""How the JP directive times the partner's move in a game where both move at once."""
TURN_BASED_CLAUSE = "on their next turn"
"""The same clause for turn-based games (Hanabi): the partner moves after me, not with me."""


def timing_clause(turn_based: bool) -> str:
    """When the partner moves, in the JP directives' words: a game's ``Game.turn_based``.

    >>> timing_clause(True), timing_clause(False)
    ('on their next turn', 'at the same time')
    """
    return TURN_BASED_CLAUSE if turn_based else SIMULTANEOUS_CLAUSE


def directives(*, turn_based: bool = False) -> Mapping[str, str]:
    """Per question type, coordqa's directive for a game that is (or is not) turn-based.

    The JP one times the partner's move with :func:`timing_clause`.

    >>> TURN_BASED_CLAUSE in directives(turn_based=True)["JP"]
    True
    """
    timing = timing_clause(turn_based)
    return {
        "EC": (
            "You are playing a cooperative game with a partner. You will be given the rules, "
            "then the current state of a game in progress and a question about that state, with "
            "lettered answers. Work out what the state implies, using the rules, the positions "
            "and the quantities it describes.\n"
            + _REPLY_FORMAT.format(label="Answer", label_lower="answer", kind="answers")
        ),
        "ToM": (
            "You are playing a cooperative game with a partner. You will be given the rules, "
            "then the current state of a game in progress and a question about your partner, "
            "with lettered answers. Reason about what your partner can see and knows, what they "
            "are trying to do, and what they would do next or need to be told.\n"
            + _REPLY_FORMAT.format(label="Answer", label_lower="answer", kind="answers")
        ),
        "JP": (
            "You are playing a cooperative game with a partner. You will be given the rules, "
            "then the current state of a game in progress and the actions you can take now, "
            "lettered. Choose the action that does the most for the shared goal, taking into "
            f"account what your partner is likely to do {timing}.\n"
            + _REPLY_FORMAT.format(label="Action", label_lower="action", kind="actions")
        ),
    }


DIRECTIVES: Mapping[str, str] = directives()
"""Per question type: what the model is asked to do and how to format its reply (for a game whose
players move at the same time). Every game's profile starts from this wording
(``GameProfile.qa_directives``); a game may word its own."""


def timing_problem(directive: str, turn_based: bool) -> str | None:
    """What is wrong with a JP ``directive`` for a game that is (or is not) turn-based.

    The other timing's clause in it is; None when it has none.

    >>> timing_problem(DIRECTIVES["JP"], turn_based=False) is None
    True
    >>> timing_problem(DIRECTIVES["JP"], turn_based=True)[-40:]
    "'on their next turn', not 'at the same time'"
    """
    wanted, wrong = timing_clause(turn_based), timing_clause(not turn_based)
    if wrong not in directive:
        return None
    order = "turn-based" if turn_based else "simultaneous"
    return f"a {order} game's JP directive must time the partner's move {wanted!r}, not {wrong!r}"


REPLY_FORMAT_START = "Reply in exactly this format"
"""How every prompt of coordqa (QA directives and agent calls) introduces its reply format: the
lines after it are the format, one ``Label: <what>`` line per part the reply must have."""

_FORMAT_START = re.compile(rf"{REPLY_FORMAT_START}[^\n]*\n", re.IGNORECASE)
_FORMAT_LINE = re.compile(r"^\s*([A-Za-z][\w' ]*?)\s*:\s*(.*)$")


def reply_format(system: str) -> str:
    r"""The reply format a system prompt asks for: the lines after "Reply in exactly this format".

    '' when the prompt states none.

    >>> reply_format("Be brief.\nReply in exactly this format:\nPlan: <why>")
    'Plan: <why>'
    """
    start = _FORMAT_START.search(system)
    return "" if start is None else system[start.end() :].strip()


def format_labels(system: str) -> list[str]:
    r"""The labels of the ``Label: <what>`` lines of the reply format a system prompt asks for.

    What a reply to it must carry (the offline models, the ``bot`` model and the agents' readers
    all take the labels from here, so a prompt's format is written once).

    >>> format_labels("Be brief.\nReply in exactly this format:\nPlan: <why>\nSubgoals:\n1. <a>")
    ['Plan', 'Subgoals']
    """
    lines = reply_format(system).splitlines()
    return [match.group(1) for line in lines if (match := _FORMAT_LINE.match(line)) is not None]
