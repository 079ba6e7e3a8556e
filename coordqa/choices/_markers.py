"""Answer markers in a reply ("Answer: C", "the best move is D", "I choose B") and their payloads.

Lines here are already lower-case with markdown removed and single spaces (see ``_layout``).
Positions are (line number, offset in that cleaned line), so the caller can map them back to the
reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

_KEYWORD = re.compile(
    r"answer|action|choice|option|move|choose|pick|select|go with|think|believe|guess|yes|no"
)
_ASKING = ("should", "shall", "would", "will", "can", "could", "do", "did", "may", "might", "must")
_NOT_ASKED = "".join(rf"(?<!\b{word} )" for word in _ASKING)
"""Look-behinds: "should I choose D?" asks, "I should choose D" answers (a verb before the
subject turns the sentence into a question)."""
_MARKER_FORMS = (
    # "Answer: C", "Action - wait", "My next action: ...", "(B) is bad, so answer: D";
    # not "Bob's last action: wait" nor "Bob's next action: ...".
    (
        re.compile(r"(?:answer|action|choice)(?: ?:| - )"),
        re.compile(
            r"(?:\A|[.!?;,:)\]>#|-] ?|\b(?:so|thus|hence|therefore|my|our|final) "
            r"|\b(?:my|our) (?:next|final|best|chosen|selected|proposed) "
            r"|\A(?:next|best|selected|chosen|correct|proposed|recommended) )$"
        ),
    ),
    # "The answer is C", "the answer must be A" (gemma-3's phrasing), "the best move is (D)",
    # "the best action for me is to ..."; not "Bob's next action is ...".
    (
        re.compile(
            r"(?:answer|action|choice|option|move)(?: for (?:me|us|alice|bob|now))?"
            r" (?:is|would be|will be|must be)\b:?"
        ),
        re.compile(r"\b(?:the|my|our) (?:(?:final|best|correct|right|optimal|next) )?$"),
    ),
    # "I choose (B)", "I'd go with C"; not "If I choose B", "Should I choose D?" nor "I'll pick
    # up onion".
    (
        re.compile(r"(?:choose|pick(?! up)|select|go with)\b"),
        re.compile(
            rf"(?<!\bif ){_NOT_ASKED}\b(?:i|we|let'?s)(?: (?:would|will|shall|should)|'d|'ll)? $"
        ),
    ),
    # Hedged: "I think it is A.", "My best guess is C"; the payload must be a letter (see
    # _HEDGED_FORMS), since "I think it is a good idea to wait" commits to nothing.
    (
        re.compile(
            r"(?:think|believe|guess)(?: that)? (?:it|this|that)(?: is|'s| would be| must be)\b"
        ),
        re.compile(r"\b(?:i|we) $"),
    ),
    (re.compile(r"guess (?:is|would be)\b:?"), re.compile(r"\bmy (?:best |final )?$")),
    # A concluding "So yes, ..." / "Therefore no.": the payload is the word itself; not "so no
    # onion is needed".
    (
        re.compile(r"(?:yes|no)(?=[,.!;:]|$)"),
        re.compile(r"(?:\A|[.!?;:,] )(?:so|therefore|thus|hence|in conclusion|in short),? $"),
    ),
)
_HEDGED_FORMS = (3, 4)
"""Hedged forms: their payload counts only as a letter reference."""
_CONCLUSION_FORM = 5
_HEDGED_LETTER = re.compile(
    r"\(?[a-z]\)?(?=[.,;:!)]|$|\s+(?:because|since|as|or|and)\b)|\([a-z]\)|\[[a-z]\]"
    r"|option [a-z]\b"
)
"""The letter a hedged marker's payload must start with: "A.", "(C)", "B because", "option D"."""
_ANSWER_PREFIX = (
    r"^[\W\d]*(?:(?:final|correct|my|our|the|next|best|selected|chosen|so|thus|therefore) )*"
)
_ANSWER_LINE_PREFIX = re.compile(_ANSWER_PREFIX + "$")
ANSWER_LINE = re.compile(_ANSWER_PREFIX + r"(?:answer|action|choice)(?: ?:| - )")
"""A line that starts with an answer marker ("Answer: ...", "Final action - ...")."""
_REVISION = re.compile(
    r"\b(?:actually|hmm+|on (?:second|further) thought|reconsider\w*|correction|mistake"
    r"|re-?evaluat\w*|double[- ]?check\w*|re-?think\w*|oops|sorry|i was wrong)\b"
    r"|(?:^|[.!?] )wait\b[,.!]"
)
_NAMED_BEFORE = re.compile(
    r"(?:^|[.!?;:,] )(?P<subject>[^.!?;:,]+?) (?:is|would be|will be) (?:the|my) "
    r"(?:(?:best|correct|right|optimal|ideal|most \w+) )?$"
)
"""The clause before "is the best <keyword>": it names the answer."""
PAYLOAD_CHARS = 300
"""A payload is read up to this many characters (cut at a space, never inside a word such as
"room 10"): an answer is short, what follows is explanation, and the bound keeps a long line
with many markers linear to read."""
_NOUNS = frozenset({"answer", "action", "choice", "option", "move"})
_SUBJECT_CHARS = 120
"""How far before "is the best action" the clause naming the answer may start (bounded, so a
long line with many such phrases is read in linear time)."""
_CONTEXT_CHARS = 40

T = TypeVar("T")


class MarkerPayload(NamedTuple):
    """What follows one answer marker."""

    text: str
    """The payload: the rest of the marker's line, or the next line when the marker ends it."""
    line: int
    """Line number of the payload."""
    start: int
    """Offset of the payload in its line."""
    end: int
    """End offset of the payload in its line."""
    marker_line: int
    """Line number of the marker."""
    marker_start: int
    """Offset of the marker in its line: its keyword, or the line's start for an answer line
    ("Final answer: C", "My next action: ...")."""
    answer_line: bool
    """The marker starts its line with a colon ("Answer: C"): a final-answer line."""
    final: bool
    """The marker says "final": it overrides earlier answer lines."""


def payloads(lines: Sequence[str]) -> list[MarkerPayload]:
    """Return what follows each answer marker, in reply order (the next line if nothing).

    >>> [p.text for p in payloads(["(b) is bad, so answer: d", "bob's next action: wait"])]
    ['d']
    >>> [(p.text, p.line) for p in payloads(["my next action:", "i will move to room 1."])]
    [('i will move to room 1.', 1)]
    """
    return [payload for number in range(len(lines)) for payload in _line_payloads(lines, number)]


def _line_payloads(lines: Sequence[str], number: int) -> list[MarkerPayload]:
    """The payloads of the markers on line ``number``, in order.

    Keywords are found first and the marker's form and left context checked only there: one
    regex with the contexts as look-behinds was 10x slower.
    """
    line = lines[number]
    found = []
    for keyword in _KEYWORD.finditer(line):
        start = keyword.start()
        if start and line[start - 1].isalnum():
            continue
        marker = _marker_end(line, start)
        if marker is None:
            named = _named_before(line, number, keyword)
            if named is not None:
                found.append(named)
            continue
        end, form = marker
        colon_form = form == 0
        rest = line[end:]
        where = (number, end + len(rest) - len(rest.lstrip()), len(line))
        if where[1] >= len(line) and number + 1 < len(lines):
            where = (number + 1, 0, len(lines[number + 1]))
        payload_line, payload_start, payload_end = where
        if form == _CONCLUSION_FORM:
            payload_line, payload_start, payload_end = number, start, end
        elif form in _HEDGED_FORMS and not _HEDGED_LETTER.match(
            lines[payload_line], payload_start, payload_end
        ):
            continue
        if payload_end - payload_start > PAYLOAD_CHARS:
            text = lines[payload_line]
            cut = text.rfind(" ", payload_start, payload_start + PAYLOAD_CHARS)
            payload_end = cut if cut > payload_start else payload_start + PAYLOAD_CHARS
        before = line[:start]
        answer_line = colon_form and bool(_ANSWER_LINE_PREFIX.match(before))
        found.append(
            MarkerPayload(
                text=lines[payload_line][payload_start:payload_end],
                line=payload_line,
                start=payload_start,
                end=payload_end,
                marker_line=number,
                marker_start=_first_letter(before, start) if answer_line else start,
                answer_line=answer_line,
                final="final" in before[-_CONTEXT_CHARS:],
            )
        )
    return found


def _named_before(line: str, number: int, keyword: re.Match[str]) -> MarkerPayload | None:
    """The payload of "B is the best action", "moving to room 3 would be the right move".

    The answer comes before the marker: the clause from the last punctuation up to "is the".
    """
    start = keyword.start()
    window = max(0, start - _SUBJECT_CHARS)
    if keyword.group() not in _NOUNS or line.find(" the ", window, start) == -1:
        return None
    found = _NAMED_BEFORE.search(line[window:start])
    if found is None:
        return None
    return MarkerPayload(
        text=found["subject"],
        line=number,
        start=window + found.start("subject"),
        end=keyword.end(),
        marker_line=number,
        marker_start=window + found.start("subject"),
        answer_line=False,
        final=False,
    )


def _first_letter(text: str, default: int) -> int:
    return next((i for i, char in enumerate(text) if char.isalpha()), default)


def _marker_end(line: str, start: int) -> tuple[int, int] | None:
    """Return where the marker at ``start`` ends and the index of its form, or None.

    None: the keyword at ``start`` is no marker there ("Bob's next action: ...").
    """
    before = line[start - _CONTEXT_CHARS : start] if start > _CONTEXT_CHARS else line[:start]
    if start > _CONTEXT_CHARS:
        before = "\u2026" + before
    for number, (form, context) in enumerate(_MARKER_FORMS):
        found = form.match(line, start)
        if found and context.search(before):
            return found.end(), number
    return None


def decide(
    lines: Sequence[str], read: Callable[[str], T | None], same: Callable[[T, T], bool]
) -> tuple[list[T], MarkerPayload, MarkerPayload] | None:
    """Read the markers of a reply: the last one that names something decides.

    Earlier markers are drafts that a later one overrides. But several answer *lines*
    ("Answer: B" ... "Answer: D") that disagree, with no sign of revision between them ("actually",
    "hmm", "on second thought", a "Final answer:"), are a list of answers, not a correction: the
    caller gets all their readings.

    Args:
        lines: The cleaned lines.
        read: What a payload names, or None when it names nothing.
        same: Whether two readings name the same thing.

    Returns:
        (readings, first payload, last payload): one reading, or the disagreeing readings of
        several answer lines; None when no marker names anything.
    """
    readings: dict[str, T | None] = {}

    def cached(text: str) -> T | None:
        if text not in readings:
            readings[text] = read(text)
        return readings[text]

    markers: dict[int, list[MarkerPayload]] = {}

    def on_line(number: int) -> list[MarkerPayload]:
        if number not in markers:
            markers[number] = _line_payloads(lines, number)
        return markers[number]

    last = _last_reading(len(lines), on_line, cached)
    if last is None:
        return None
    answers: list[tuple[MarkerPayload, T]] = []
    for number, line in enumerate(lines):
        if not ANSWER_LINE.match(line):
            continue
        payload = next((p for p in on_line(number) if p.answer_line), None)
        reading = None if payload is None else cached(payload.text)
        if payload is None or reading is None:
            continue
        if answers and (payload.final or _revised(lines, answers[-1][0], payload)):
            answers = []
        answers.append((payload, reading))
    if any(not same(answers[0][1], other) for _, other in answers[1:]):
        return [reading for _, reading in answers], answers[0][0], answers[-1][0]
    return [last[1]], last[0], last[0]


def _last_reading(
    count: int, on_line: Callable[[int], list[MarkerPayload]], read: Callable[[str], T | None]
) -> tuple[MarkerPayload, T] | None:
    """The last marker whose payload names something, and its reading.

    Found from the end: replies end with their answer, so the explanation before it is rarely
    scanned.
    """
    for number in range(count - 1, -1, -1):
        for payload in reversed(on_line(number)):
            reading = read(payload.text)
            if reading is not None:
                return payload, reading
    return None


def _revised(lines: Sequence[str], earlier: MarkerPayload, later: MarkerPayload) -> bool:
    """True when the text between two answer lines revises the earlier one."""
    between = [*lines[earlier.line + 1 : later.marker_line], lines[later.marker_line]]
    return any(_REVISION.search(text) for text in between)
