r"""THE one way a free-text model reply is mapped to one of a list of options.

CoordinationQA scoring and LLM agents choosing game actions both call :func:`choose`, so a reply
is read the same way whether it answers a question or moves a game piece. The original scorer took
the first capital letter followed by "." or ")" anywhere in a reply ("OK." decided answers) and
turned failures into a fixed wrong letter; here every reply gets an explicit outcome: ``chosen``,
``ambiguous`` (it committed to several options, or to one plus a letter that is not on the list)
or ``no_answer``. Nothing is ever guessed, and :attr:`Choice.span` says which text decided.

First the reply's layout (``_layout``): it ends at the first chat-template token that follows
text (``</s>`` then more, ``[INST]``, ``<|im_start|>``, ``<start_of_turn>``...), and a reply
that opens another speaker's turn (``[INST]``, ``<<SYS>>``, a ``user`` role) answers nothing;
leading closing tokens and an assistant header are skipped; quotes and
trailing commas are debris; echoed or invented option lists are never answers (also the offered list
recited after a marker, "Answer: A. <text of A>", "B. <text of B>", ..., or on one line, "Answer:
A) Yes B) No"), nor is a lone lettered line whose letter is not on the list; one line repeated
("A", "A", "A") is no list; an invented question or list (also "...? Answer: A" on one line), or
a new turn, means what follows answers something else (with ``question=``, the question that
was asked, a question the model invents is told from a restatement of the asked one, and an
invented question answered on the next line, "Answer: Yes" or a lone "Yes.", ends the reading).
The remaining lines form segments; the
first segment that names something decides. Within a segment, the first rule that yields
something wins:

1. The segment is one line that *is* one option's text (case, punctuation, markdown ignored).
2. The **last** answer marker whose payload names something: ``Answer:``, ``Action:``,
   ``Final answer:``, ``My next action:``, ``the (best) answer/action/option/move is``, ``I
   choose/pick/select/go with`` (not asked: "Should I choose D instead?"), a concluding ``So
   yes,`` / ``Therefore, no.`` (the word is the payload: the option that says yes or no), and
   hedged ones that count only before a letter (``I think it is A.``, ``My best guess is C``:
   "I think it is a good idea" commits to nothing). Earlier markers are drafts of a chain of
   thought, so a later one overrides them, except that several ``Answer:`` *lines* naming
   different options with no revision between them ("actually", "hmm", "Final answer:") are a
   list of answers: ambiguous (``marker_conflict``). The payload (the rest of the line, or the
   next line when the marker ends its line) is read loosely: letters (``C``, ``(C)``, ``Option
   C``, ``B or C``, ``(A)(B)``), letters with their contrast (``D instead``, ``D rather than
   A``, ``D, not A``, ``not A but D``: what the contrast names is rejected), a letter followed
   by text (``C. pick up onion``, or its part before an explanation, ``C. wait (one turn)``:
   text naming another option makes it ambiguous), or option text (exact, contained, fuzzy,
   abbreviated, paraphrased).
3. The last line, read strictly: only a line that *is* an answer counts (a letter reference, a
   letter followed by its option's text or by "because ...", or an option's text, exact, fuzzy,
   abbreviated or paraphrased), because prose like "(B) is bad, so ..." must not decide. Only a
   reply of one line may name an option's text inside its sentence ("No, Alice cannot reach c0");
   a line left alone by a list cut from it ("I am in Room 1." then "B. Room 2") may not, nor may
   a sentence that picks or supposes a letter ("If I choose A, Bob has to wait": the text is
   reasoning around the letter, which decides by the rules above or nothing does).
4. The first line of a multi-line segment, when it is a letter reference, alone or with its
   option's text ("C" or "C. wait", then an explanation or an echo of the rules).

Lines labelled with a player's name ("Alice: move to room 5", "Bob's next action: wait") are read
before all this. When the caller names the speaker (``choose(..., speaker="Alice")``; the LLM
agents do), only the speaker's labelled lines answer (``speaker_line``), never the partner's; an
answer elsewhere in the reply that names another option makes it ambiguous, and when the
speaker's lines name nothing the other lines are read as usual. When the speaker is unknown
(CoordinationQA scoring: the prompt of a question need not name its speaker), an answer in the
unlabelled lines decides; else lines labelled by two names must all name the same option
(``names_agree``); different options are ambiguous (``names_conflict``), and a name whose lines
name nothing leaves no answer. With one name only, "Bob's next action: ..." is taken to be about
the partner and is not an answer.

Letters: only A-Z answer by letter. A letter past the list names nothing on its own ("Answer: Z"
with 6 options) and makes an answer that also names an option ambiguous ("Answer: (A)(B)(C)" with
two options). Options past Z (the original release labels them "[", "\", ...) are read by text.
Two options with the same text are both named by that text (ambiguous) unless a letter decides.
Option texts that themselves read as a letter answer ("B", "Option C") are rejected with
ConfigError, so a reply that is exactly one option's text, or its decorated letter, always maps to
it.

Option text is matched in widening circles (``_options``): exact; contained in a sentence; fuzzy
(:data:`FUZZY_THRESHOLD`; never across ids: ``c0``/``c1`` or ``rank 1``/``rank 2`` must match
exactly, and every extra word must be a typo of a missing option word or a filler, so "Reveal
Bob's Green color cards" is not read as "... Red ..."); abbreviated (a prefix of the word that
tells options apart: "Y" for "Yellow"); paraphrased (inflected verbs, "towards", the speaker as
subject: "Alice moves to room 1" for "Move to Room 1"). An option text after "not" does not count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from coordqa.choices._layout import Asked, Label, Line, lines_of, name_labels, segments
from coordqa.choices._markers import decide
from coordqa.choices._options import (
    FUZZY_THRESHOLD,
    MAX_OPTIONS,
    OPTION_LABELS,
    WORD_SIMILARITY,
    Match,
    Options,
    normalise,
    prepare,
    resolve,
)
from coordqa.errors import ConfigError
from coordqa.jsonvalues import JSONObject

T = TypeVar("T")

__all__ = [
    "FUZZY_THRESHOLD",
    "MAX_OPTIONS",
    "METHODS",
    "OPTION_LABELS",
    "CHOICE_OUTCOMES",
    "TEXT_METHODS",
    "WORD_SIMILARITY",
    "Choice",
    "ChoiceOutcome",
    "choose",
    "format_options",
    "is_correct",
    "option_letter",
    "question_before_options",
]

ChoiceOutcome = Literal["chosen", "ambiguous", "no_answer"]
CHOICE_OUTCOMES: tuple[ChoiceOutcome, ...] = ("chosen", "ambiguous", "no_answer")
METHODS = (
    "option_text_exact",
    "marker_letter",
    "marker_text",
    "marker_fuzzy",
    "marker_abbreviation",
    "marker_paraphrase",
    "marker_conflict",
    "final_line_letter",
    "final_line_text",
    "final_line_fuzzy",
    "final_line_abbreviation",
    "final_line_paraphrase",
    "first_line_letter",
    "speaker_line",
    "names_agree",
    "names_conflict",
    "empty_reply",
    "none",
)
"""Every value of :attr:`Choice.method`: where the decision came from, and how. Two mean
``no_answer``: ``empty_reply``, the model replied with nothing (empty or only whitespace: it
ended its turn at once, or spent its token budget before writing), and ``none``, a reply that
names no option, or no reply at all (None: the call failed)."""

TEXT_METHODS = frozenset(
    {
        "option_text_exact",
        "marker_text",
        "marker_fuzzy",
        "marker_abbreviation",
        "marker_paraphrase",
        "final_line_text",
        "final_line_fuzzy",
        "final_line_abbreviation",
        "final_line_paraphrase",
    }
)
"""The methods that read an option's text (exact, contained, fuzzy, abbreviated or paraphrased),
not its letter (:attr:`Choice.matched_text`). The others read a letter, a conflict, or players'
labelled lines whose reading may be either (``speaker_line``, ``names_agree``,
``names_conflict``), or nothing (``empty_reply``, ``none``)."""

_METHOD_SET = frozenset(METHODS)
_EXPLANATION_LINE = re.compile(r"^\W*(?:explanation|reasoning|rationale|analysis|thoughts?)\b")
"""A line that says it explains: an option it mentions is not thereby chosen."""
_REQUIRED_KEYS = ("outcome", "index", "candidates", "method", "score")
_SPEAKER = re.compile(r"[a-z]+")
"""A speaker's name: one word of letters (lower case), as the games name players."""


def _is_span(span: object) -> bool:
    return (
        isinstance(span, tuple)
        and len(span) == 2
        and all(type(x) is int for x in span)
        and 0 <= span[0] <= span[1]
    )


def option_letter(index: int) -> str:
    r"""Return the label of the option at 0-based ``index``: A-Z, then "[", "\", "]", ...

    Past Z the original release continues with the next ASCII characters, so imported
    questions are shown as they were asked; such options are answered by their text.

    >>> option_letter(0), option_letter(25), option_letter(26)
    ('A', 'Z', '[')
    """
    if not 0 <= index < len(OPTION_LABELS):
        raise ConfigError(
            f"option index {index} has no label: options are labelled {OPTION_LABELS!r} in "
            f"order, so the index must be in 0..{len(OPTION_LABELS) - 1} (past that the labels "
            "would be lower-case letters, which read as A-Z); offer fewer options"
        )
    return OPTION_LABELS[index]


def format_options(options: Sequence[str]) -> str:
    """Return the lettered option list that prompts show, one ``"A. text"`` line per option.

    >>> print(format_options(["pick up onion from o0", "wait"]))
    A. pick up onion from o0
    B. wait
    """
    prepare(tuple(options))
    return "\n".join(f"{option_letter(i)}. {text}" for i, text in enumerate(options))


def question_before_options(prompt: str) -> str | None:
    r"""The question a prompt asks: the paragraph just before its lettered option list.

    Prompts end with the question sentence, a blank line, then a paragraph of lettered options
    (under a marker line such as "Available Answers:"); None when the prompt does not end so.

    >>> question_before_options("State.\n\nIs c0 full?\n\nAvailable Answers:\nA. Yes\nB. No")
    'Is c0 full?'
    """
    parts = [part.strip() for part in prompt.strip().split("\n\n")]
    lettered = re.compile(rf"^{re.escape(option_letter(0))}[.)] ", re.MULTILINE)
    if len(parts) < 2 or not lettered.search(parts[-1]):
        return None
    return parts[-2] or None


@dataclass(frozen=True)
class Choice:
    """What a reply committed to, how that was decided, and which text decided it."""

    outcome: ChoiceOutcome
    """``chosen`` (exactly one option), ``ambiguous`` (several) or ``no_answer``."""
    index: int | None
    """0-based index of the chosen option; None unless ``outcome == "chosen"``."""
    candidates: tuple[int, ...]
    """The options the reply committed to, ascending: one if chosen; if ambiguous, several, or
    one when the reply also named a letter that is not on the list."""
    method: str
    """Which rule decided, one of :data:`METHODS`."""
    score: float | None = None
    """The fuzzy similarity (0-100) when a fuzzy match or abbreviation decided, else None."""
    span: tuple[int, int] | None = field(default=None, compare=False)
    """``(start, end)`` offsets into the reply of the text that decided (``reply[start:end]``);
    None for ``no_answer`` and for records stored before spans existed. Not part of equality:
    two Choices are equal when they read the same."""

    def __post_init__(self) -> None:
        count = len(self.candidates)
        if self.outcome == "chosen":
            shape_ok = count == 1 and self.index == self.candidates[0]
        else:
            shape_ok = self.index is None and (count == 0) == (self.outcome == "no_answer")
        span_ok = self.span is None or (self.outcome != "no_answer" and _is_span(self.span))
        if not (
            shape_ok and span_ok and self.outcome in CHOICE_OUTCOMES and self.method in _METHOD_SET
        ):
            raise ConfigError(
                f"inconsistent Choice {self!r}: outcome must be one of {CHOICE_OUTCOMES}, method "
                f"one of {METHODS}; 'chosen' needs index == the single candidate, 'ambiguous' at "
                "least one candidate and no index, 'no_answer' neither and no span; a span is two "
                "offsets 0 <= start <= end"
            )

    @property
    def chosen(self) -> bool:
        """True when the reply committed to exactly one option."""
        return self.outcome == "chosen"

    def pick(self, options: Sequence[T]) -> T | None:
        """The chosen one of ``options`` (the list the reply was read against), else None.

        >>> choose("B", ["wait", "move"]).pick(["wait", "move"])
        'move'
        >>> choose("", ["wait", "move"]).pick(["wait", "move"]) is None
        True
        """
        return None if self.index is None else options[self.index]

    @property
    def matched_text(self) -> bool:
        """True when an option's text decided, not its letter (:data:`TEXT_METHODS`).

        What a reader needs whose options were shown without letters (an HM subgoal list).

        >>> choose("Alice moves to room 1", ["Move to Room 1", "Wait"]).matched_text
        True
        >>> choose("Answer: A", ["Move to Room 1", "Wait"]).matched_text
        False
        """
        return self.method in TEXT_METHODS

    def to_dict(self) -> JSONObject:
        """Return a JSON-friendly dict; :meth:`from_dict` reads it back."""
        return {
            "outcome": self.outcome,
            "index": self.index,
            "candidates": list(self.candidates),
            "method": self.method,
            "score": self.score,
            "span": None if self.span is None else list(self.span),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Choice:
        """Rebuild a Choice from :meth:`to_dict` output, validating it.

        ``span`` may be absent: records stored before it existed read back with ``span=None``.
        """
        keys = set(data) - {"span"}
        if keys != set(_REQUIRED_KEYS):
            raise ConfigError(
                f"a Choice dict needs exactly the keys {_REQUIRED_KEYS} (and optionally 'span'), "
                f"got {sorted(data)}"
            )
        span = data.get("span")
        return cls(
            outcome=data["outcome"],
            index=data["index"],
            candidates=tuple(data["candidates"]),
            method=data["method"],
            score=data["score"],
            span=None if span is None else tuple(span),  # type: ignore[arg-type]
        )


_NO_ANSWER = Choice("no_answer", None, (), "none")
_EMPTY_REPLY = Choice("no_answer", None, (), "empty_reply")


def choose(
    reply: str | None,
    options: Sequence[str],
    *,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    speaker: str | None = None,
    question: str | None = None,
) -> Choice:
    """Map a free-text reply to one of ``options`` (see the module docstring for the rules).

    Args:
        reply: The model's reply. A blank one (empty, or only whitespace) is ``no_answer`` with
            method ``empty_reply``; None (no reply: the call failed) is ``no_answer`` with
            method ``none``.
        options: The option texts in label order (A first); any number, duplicates allowed.
        fuzzy_threshold: Minimum fuzzy similarity (0-100] for a non-exact option text.
        speaker: The name of the player who replies ("Alice"), when the caller knows it: then
            only the lines the reply labels with that name answer, never the partner's. None:
            lines labelled by two names that name different options are ambiguous.
        question: The question the reply answers (CoordinationQA scoring passes the question
            sentence), when the caller knows it: then a question the model invents and answers
            ("Do you know this game?" then "Answer: Yes") ends the reading, while a restatement
            of this question ("what is the best move for me?") does not. None: a question line
            followed by an answer line may be a restatement, so reading goes on after it when
            nothing answered before.

    Returns:
        The outcome; never a default option.

    Raises:
        ConfigError: Invalid options (none, blank, multi-line, or reading as a letter answer), a
            threshold outside (0, 100], or a speaker that is not one word of letters.

    >>> choose("Explanation: (B) is bad. Answer: C", ["wait", "move away", "pick up onion"]).index
    2
    """
    opts = prepare(tuple(options))
    if not 0 < fuzzy_threshold <= 100:
        raise ConfigError(f"fuzzy_threshold must be in (0, 100], got {fuzzy_threshold}")
    name = None if speaker is None else speaker.strip().lower()
    if name is not None and not _SPEAKER.fullmatch(name):
        raise ConfigError(
            f"speaker must be one player's name, one word of letters such as 'Alice', got "
            f"{speaker!r}; pass None when the speaker is not known"
        )
    if reply is not None and not reply.strip():
        return _EMPTY_REPLY
    lines = lines_of(reply or "")
    asked = None if question is None else Asked.of(question)
    labels = name_labels(lines, name)
    if labels:
        return _read_labelled(lines, labels, opts, fuzzy_threshold, name, asked)
    return _read_lines(lines, opts, fuzzy_threshold, asked)


def _read_lines(lines: list[Line], opts: Options, threshold: float, asked: Asked | None) -> Choice:
    """Read a reply's lines segment by segment: the first segment that names something decides."""
    for segment in segments(lines, opts, asked):
        choice = _read(segment.lines, opts, threshold, one_line=len(lines) == 1)
        if choice is not None:
            return choice
        if segment.last:
            break
    return _NO_ANSWER


def _read_labelled(
    lines: list[Line],
    labels: list[Label],
    opts: Options,
    threshold: float,
    speaker: str | None,
    asked: Asked | None,
) -> Choice:
    """Read a reply whose lines players' names label ("Alice: ...", "Bob's next action: ...").

    Known speaker: its own labelled lines answer (``speaker_line``), the partner's never; an
    answer elsewhere in the reply that names another option makes it ambiguous; when its lines
    name nothing, the unlabelled lines are read as usual. Unknown speaker: an answer in the
    unlabelled lines decides; else, when two or more names label lines, they all must name the
    same option (``names_agree``), different ones are ambiguous (``names_conflict``) and a name
    whose lines name nothing leaves no answer. With one name only, a possessive line ("Bob's
    next action: ...") is taken to be about the partner and left out; "Alice: ..." is read as a
    line.
    """
    names = {label.name for label in labels}
    if speaker is None and len(names) < 2:
        about_partner = {label.line for label in labels if label.possessive}
        return _read_lines(
            [line for i, line in enumerate(lines) if i not in about_partner], opts, threshold, asked
        )
    covered = {i for label in labels for i in label.covers}
    rest = _read_lines(
        [line for i, line in enumerate(lines) if i not in covered], opts, threshold, asked
    )
    if speaker is None and rest.outcome != "no_answer":
        return rest
    readings = [
        (label, match)
        for label in labels
        if label.payload is not None and (speaker is None or label.name == speaker)
        for match in [resolve(label.payload.text, opts, threshold, loose=True, contained=True)]
        if match is not None
    ]
    if not readings:
        return rest if speaker is not None else _NO_ANSWER
    span = (
        _whole(lines[readings[0][0].line])[0],
        _whole(readings[-1][0].payload)[1],  # type: ignore[arg-type]
    )
    matches = [match for _, match in readings]
    agree = all(_same(matches[0], other) for other in matches[1:])
    match = matches[0] if agree else _merged(matches)
    if speaker is not None:
        if rest.outcome != "no_answer" and (rest.candidates, rest.outcome) != (
            match.candidates,
            "chosen",
        ):
            candidates = tuple(sorted({*match.candidates, *rest.candidates}))
            return Choice("ambiguous", None, candidates, "speaker_line", None, span)
        return _choice(match, "speaker_line", span)
    if names - {label.name for label, _ in readings}:
        return _NO_ANSWER  # a player's lines name nothing: the speaker may not have answered
    return _choice(match, "names_agree" if agree else "names_conflict", span)


def is_correct(choice: Choice, correct: Sequence[int]) -> bool:
    """True when ``choice`` chose exactly one option and it is among the ``correct`` indices.

    >>> is_correct(Choice("chosen", 2, (2,), "marker_letter"), [1, 2])
    True
    """
    if not correct:
        raise ConfigError("is_correct needs at least one correct option index, got none")
    return choice.chosen and choice.index in correct


def _read(lines: list[Line], opts: Options, threshold: float, *, one_line: bool) -> Choice | None:
    """Read one segment by the rules of the module docstring; None when it names nothing.

    ``one_line``: the whole reply is one line, so option text inside its sentence may decide. A
    line left alone by a list or a new question cut from it ("I am in Room 1." then "B. Room 2")
    is read strictly, like any last line of a longer reply.
    """
    if not lines:
        return None
    texts = [line.text for line in lines]
    if len(lines) == 1:
        exact = opts.by_norm.get(normalise(texts[0]))
        if exact is not None:
            return _choice(Match(exact, "text"), "option_text_exact", _whole(lines[0]))

    def read_payload(payload: str) -> Match | None:
        return resolve(payload, opts, threshold, loose=True, contained=True)

    decided = decide(texts, read_payload, _same)
    if decided is not None:
        readings, first, last = decided
        span = (
            lines[first.marker_line].offset(first.marker_start),
            lines[last.line].offset_after(last.end),
        )
        match = readings[0] if len(readings) == 1 else _merged(readings)
        return _choice(match, f"marker_{match.kind}", span)
    final = (
        None
        if _EXPLANATION_LINE.match(texts[-1])
        else resolve(texts[-1], opts, threshold, loose=False, contained=one_line)
    )
    if final is not None:
        return _choice(final, f"final_line_{final.kind}", _whole(lines[-1]))
    opening = (
        resolve(texts[0], opts, threshold, loose=False, contained=False) if len(lines) > 1 else None
    )
    if opening is not None and opening.kind == "letter":
        return _choice(opening, "first_line_letter", _whole(lines[0]))
    return None


def _same(a: Match, b: Match) -> bool:
    return (a.candidates, a.off_list) == (b.candidates, b.off_list)


def _merged(readings: list[Match]) -> Match:
    """The readings of several disagreeing answer lines, as one ambiguous match."""
    candidates = tuple(sorted({i for match in readings for i in match.candidates}))
    return Match(candidates, "conflict", off_list=any(match.off_list for match in readings))


def _whole(line: Line) -> tuple[int, int]:
    return line.offset(0), line.offset_after(len(line.text))


def _choice(match: Match, method: str, span: tuple[int, int]) -> Choice:
    """The Choice a match makes when ``method`` found it in the text at ``span``."""
    if len(match.candidates) == 1 and not match.off_list:
        return Choice("chosen", match.candidates[0], match.candidates, method, match.score, span)
    return Choice("ambiguous", None, match.candidates, method, match.score, span)
