r"""Reading the labelled sections of free-text agent replies ("Hypothesis:", "Plan:", "Subgoals:").

Lettered choices are read by :mod:`coordqa.choices`; these helpers read only the prose parts the
agents keep (hypotheses, plans, ToM notes, reflections, beliefs) and the subgoal list, whose
items are matched to legal actions by option *text* (never by a bare letter, since the list
shows no letters).

A free-text reply is read as strictly as an action: only what follows a label the call asked for
is kept, and a reply with none of its role's labels is unreadable for that role (the agent asks
once more, then takes the role's fallback: :meth:`LLMAgent.ask_labelled
<coordqa.agentic.agents.base.LLMAgent.ask_labelled>`). The labels a call asks for are read from
its system prompt's reply format (:func:`coordqa.directives.format_labels`), the one place they
are written.

>>> reply = "Hypothesis: Bob fetches onions.\nPlan: cook.\nSubgoals:\n1. wait\n2) move away"
>>> section(reply, "hypothesis"), section(reply, "plan"), subgoals(reply)
('Bob fetches onions.', 'cook.', ['wait', 'move away'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from coordqa.choices import choose

LABELS = (
    "hypothesis",
    "plan",
    "subgoals",
    "answer",
    "prediction",
    "explanation",
    "action",
    "reflection",
)
"""Labels that start a section (a line ``Label: ...``)."""

MAX_SECTION_CHARS = 600
"""A kept section is cut to this length (prompts that show it stay bounded)."""

MAX_SUBGOALS = 6
"""At most this many subgoals are kept from a plan (the paper's plans had 3-6)."""

MARKDOWN_MARKS = "*_`#"
"""Characters of Markdown emphasis, code and headings, dropped before a reply's labels are read."""
_MARKS = re.escape(MARKDOWN_MARKS)
_MARKDOWN = re.compile(f"[{_MARKS}]")
_LABEL = re.compile(r"^\s*(?P<label>[a-z][\w' ]*?)\s*:\s*(?P<rest>.*)$", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.)]|[-*\u2022])\s*")


def _label(line: str, known: Sequence[str] = LABELS) -> tuple[str, str] | None:
    match = _LABEL.match(line)
    if match is None or match.group("label").lower() not in known:
        return None
    return match.group("label").lower(), match.group("rest").strip()


def strip_markdown(text: str | None) -> str:
    """``text`` without Markdown marks (``**Action:**`` reads as ``Action:``); None reads as ''.

    >>> strip_markdown("**Verification:** `Okay`")
    'Verification: Okay'
    """
    return _MARKDOWN.sub("", text or "")


def _lines(text: str | None) -> list[str]:
    return strip_markdown(text).splitlines()


def section(text: str | None, label: str, others: Sequence[str] = ()) -> str | None:
    r"""The text of the last ``label:`` section (its line plus following unlabelled lines).

    A section ends at the next line that starts with one of :data:`LABELS` or ``others`` (the
    other labels of the call's format). None when no line starts with ``label:`` or the section
    is empty.

    >>> section("Partner Needs: a save.\nClue: red", "Partner Needs", ["Clue"])
    'a save.'
    """
    known = (*LABELS, label.lower(), *(other.lower() for other in others))
    lines = _lines(text)
    starts = [
        i for i, line in enumerate(lines) if (_label(line, known) or ("", ""))[0] == label.lower()
    ]
    if not starts:
        return None
    start = starts[-1]
    parts = [(_label(lines[start], known) or ("", ""))[1]]
    for line in lines[start + 1 :]:
        if _label(line, known) is not None:
            break
        parts.append(line.strip())
    body = " ".join(" ".join(parts).split())
    return body[:MAX_SECTION_CHARS] or None


def labelled_lines(text: str | None, labels: Sequence[str]) -> str | None:
    r"""The ``Label: text`` lines of ``labels`` a reply has, in the format's order; None if none.

    What a free-text role keeps of a reply (a CAC ToM note, a belief state): the sections it
    asked for, never the text before them (a section runs on to the next label).

    >>> labelled_lines("Hmm.\nClue: red\nAction: B", ["Partner Needs", "Clue"])
    'Clue: red'
    """
    found = []
    for label in labels:
        value = section(text, label, labels)
        if value is not None:
            found.append(f"{label}: {value}")
    return "\n".join(found) or None


def subgoals(text: str | None) -> list[str]:
    """The numbered or bulleted items of the last ``Subgoals:`` section, at most MAX_SUBGOALS."""
    lines = _lines(text)
    starts = [i for i, line in enumerate(lines) if (_label(line) or ("", ""))[0] == "subgoals"]
    if not starts:
        return []
    first = (_label(lines[starts[-1]]) or ("", ""))[1]
    items = [first] if first else []
    for line in lines[starts[-1] + 1 :]:
        if _label(line) is not None:
            break
        item = _NUMBERING.sub("", line).strip()
        if item:
            items.append(item)
    return items[:MAX_SUBGOALS]


def subgoal_action(subgoal: str, legal: Sequence[str]) -> str | None:
    """The legal action a subgoal names by its text, or None.

    Option text is read as :func:`coordqa.choices.choose` reads it (exact, fuzzy, abbreviated or
    paraphrased: "Alice moves to room 1" names "Move to Room 1"); a letter never counts, since
    the plan's action list shows none.

    >>> subgoal_action("pick up onion from o0", ["pick up onion from o0", "wait"])
    'pick up onion from o0'
    >>> subgoal_action("B", ["pick up onion from o0", "wait"]) is None
    True
    """
    if not legal:
        return None
    choice = choose(subgoal, list(legal))
    if choice.index is None or not choice.matched_text:
        return None
    return legal[choice.index]
