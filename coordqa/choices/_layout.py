"""The layout of a reply: where it ends, its lines, and which lines answer nothing.

Small and base models do not stop where an answer ends. They open a new chat turn (``</s>``
then text, ``[INST]``, ``<|im_start|>``), invent a new question with its own lettered options, or
repeat the option list. This module cuts and splits a reply so that only text that can answer
*this* question is read:

- the reply ends at the first chat-template token that follows text (leading tokens and a role
  word such as "assistant" are skipped); quotes and commas around lines are debris;
- option lists (two or more lines, lettered or option texts as bullets, that name different
  options, or any lettered lines under a header such as "Available Actions:" or a question) are
  never answers; one line repeated ("A", "A", "A") is no list. A list that repeats the offered
  options, or comments on them, is an echo: the reading goes on after it unless an answer came
  before it. A list recited after an answer marker ("Answer: A. <text of A>", then "B. <text of
  B>", ...) is an echo too. A list under a header or question that is *not* the offered one, or
  one that re-letters the options ("A. <text of option D>"), is invented: what follows answers
  another question, so reading stops there. (A list on one line, "A. yes B. no", is found where
  spans are read, in ``_options``.);
- a question line (remarks in brackets may follow its question mark) followed by an answer
  line, a "Question:" line and a role line ("User:") start another exchange: they end the
  reading when an answer came before (a role line: when any text did). When the caller passes
  the question that was asked, a question line that is the model's own (not a restatement of
  the asked one, :class:`Asked`) followed by an answer line or a short answer ("Yes.") ends the
  reading there: what came before may still answer, what follows does not. A question followed
  by an answer marker on the same line ("Answer: B. Can Bob reach d0? Answer: A") is cut into
  lines first, so it counts the same;
- a lone lettered line whose letter is not on the list is no answer;
- lines labelled with a player's name ("Alice: ...", "Bob's next action: ...") are found by
  :func:`name_labels`, so the reader can tell the speaker's line from the partner's.

Each kept line remembers where it is in the reply, so a reading can say which text decided it.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Literal, NamedTuple

from coordqa.choices._markers import ANSWER_LINE
from coordqa.choices._options import OPTION_LABELS, PLAYER_NAMES, Options, normalise

_TURN = re.compile(
    r"</s>|<s>|<\|[a-z_]+\|>|<(?:start|end)_of_turn>|<eos>|<bos>|\[/?inst\]|<</?sys>>",
    re.IGNORECASE,
)
_LEAD = re.compile(rf"(?:\s*(?:{_TURN.pattern})(?:\s*(?:assistant|model)\b)?)*\s*", re.IGNORECASE)
_OPENS_TURN = re.compile(r"\[inst\]|<<sys>>", re.IGNORECASE)
_OTHER_ROLE = re.compile(r"(?:user|system|human)\b", re.IGNORECASE)
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""The characters ``str.splitlines`` breaks at."""
_DEBRIS = " \t\"',\u201c\u201d\u2018\u2019"
_MARKDOWN_TO_SPACE = str.maketrans("*_`~", "    ")
_WORD = re.compile(r"[^\s*_`~]+")
_POSSESSIVE_LABEL = re.compile(
    r"^(?!my\b|our\b|let\b)(?P<name>[a-z]+)['\u2019]s "
    r"(?:(?:next|last|previous|current|intended|likely) )?"
    r"(?:action|move|plan|intention)s? ?(?::|is\b|will\b|would\b)"
)
"""A line about one player's action: "Bob's next action: wait", "Alice's plan is to ..."."""
_NAME_LABEL = re.compile(r"^(?P<name>[a-z]+) ?:")
"""A line a player's name labels ("Alice: move to room 5"), for the names of ``PLAYER_NAMES``
and the speaker's."""
_ROLES = r"#*\s?(?:user|human|system|assistant|instruction|input)\s?:"
_ROLE = re.compile(f"^{_ROLES}")
_LETTERED = re.compile(
    r"^(?:[-\u2022>#] ?)*(?:\((?P<a>[a-z])\)|\[(?P<b>[a-z])\]|(?P<c>[a-z]) ?[.):](?=\s|$)"
    r"|(?P<d>[a-z]) -(?=\s)|(?P<e>[a-z])$)\s*(?P<text>.*)$"
)
_PAST_Z = re.compile(r"^\s*(?P<label>[\[\\\]^_`]) ?[.)]\s*(?P<text>\S.*)$")
_BULLET = re.compile(r"^(?:[-\u2022]|\d{1,2}[.)]) (?P<text>.+)$")
_HEADER = re.compile(
    r"^(?:(?:available|possible|legal|valid) (?:answers?|actions?|options?|choices?)"
    r"|answers|actions|options|choices|answer (?:choices|options)) ?:?$"
)
_QUESTION_LABELS = r"question ?\d* ?[:.]|q ?\d+ ?[:.]|q ?:"
_QUESTION_LABEL = re.compile(f"^(?:{_QUESTION_LABELS})")
_ASKED_INLINE = re.compile(
    r"\?(?=[\s\"'*_`]*(?:final |correct |my )?(?:answer|action)\s*[:\-])", re.IGNORECASE
)
"""A question mark followed on its line by an answer marker: a question and its answer."""
_QUESTION_END = r"\?(?:\s*\([^()]*\))*$"
"""A question mark ending a line, perhaps followed by remarks in brackets ("...? (Choose one.)")."""
_ENDS_QUESTION = re.compile(_QUESTION_END)
_TURN_LINE = re.compile(rf"^(?:.*{_QUESTION_END}|{_ROLES}|{_QUESTION_LABELS})")
"""A line that may start another exchange (checked in detail by ``_turn_boundary``)."""


def clean(text: str) -> str:
    """Lower-case ``text``, blank out markdown and collapse whitespace runs to one space.

    >>> clean("  **Answer:**   `C`")
    'answer: c'
    """
    lowered = text.lower()
    if "*" in lowered or "_" in lowered or "`" in lowered or "~" in lowered:
        lowered = lowered.translate(_MARKDOWN_TO_SPACE)
    return " ".join(lowered.split())


def origin(text: str, index: int) -> int:
    """Return the index in ``text`` of the character at ``index`` in ``clean(text)``.

    A space of the cleaned text maps to the first blank or markdown character it replaces.

    >>> clean(" *A*  B"), [origin(" *A*  B", i) for i in range(3)]
    ('a b', [2, 3, 6])
    """
    position = 0
    for word in _WORD.finditer(text):
        lowered = word.group().lower()
        if index < position + len(lowered):
            return word.start() + _within(word.group(), index - position)
        if index == position + len(lowered):
            return word.end()
        position += len(lowered) + 1
    raise IndexError(f"index {index} is past the end of the cleaned text")


def _within(word: str, index: int) -> int:
    """The index in ``word`` of character ``index`` of ``word.lower()`` (lengths may differ)."""
    if len(word.lower()) == len(word):
        return index
    for position, char in enumerate(word):
        index -= len(char.lower())
        if index < 0:
            return position
    raise IndexError(index)


class Line(NamedTuple):
    """One non-blank line of a reply, cleaned, with its place in the reply."""

    reply: str
    """The whole reply."""
    start: int
    """Offset in ``reply`` of the line's first character after debris."""
    end: int
    """Offset in ``reply`` just after the line's last character before debris."""
    text: str
    """The line cleaned (:func:`clean`)."""

    def offset(self, index: int) -> int:
        """Offset in the reply of the character at ``index`` in :attr:`text`."""
        raw = self.reply[self.start : self.end]
        if len(raw) == len(self.text) and raw.lower() == self.text:
            return self.start + index
        return self.start + origin(raw, index)

    def offset_after(self, index: int) -> int:
        """Offset in the reply just after the character at ``index - 1`` in :attr:`text`."""
        return self.offset(index - 1) + 1


class Segment(NamedTuple):
    """Lines read together, and whether reading may go on after them."""

    lines: list[Line]
    """The kept lines, in order."""
    last: bool
    """What follows answers something else: stop here even when these lines answer nothing."""


def lines_of(reply: str) -> list[Line]:
    """Return the reply's non-blank lines up to the first chat-turn token, without debris."""
    start = _LEAD.match(reply)
    begin = start.end() if start else 0
    if begin and (_OPENS_TURN.search(reply, 0, begin) or _OTHER_ROLE.match(reply, begin)):
        return []  # the reply opens another speaker's turn: nothing in it answers this question
    turn = _TURN.search(reply, begin) if "<" in reply or "[" in reply else None
    end = turn.start() if turn else len(reply)
    found = []
    position = begin
    for raw in reply[begin:end].splitlines(keepends=True):
        body = raw.rstrip(_LINE_BREAKS)
        for piece_start, piece_end in _pieces(reply, position, position + len(body)):
            piece = reply[piece_start:piece_end]
            first = piece_start + len(piece) - len(piece.lstrip(_DEBRIS))
            last = piece_start + len(piece.rstrip(_DEBRIS))
            text = clean(reply[first:last]) if first < last else ""
            if text:
                found.append(Line(reply, first, last, text))
        position += len(raw)
    return found


class Label(NamedTuple):
    """A line that a player's name labels, and what it says after the label."""

    line: int
    """Index of the labelled line."""
    name: str
    """The name, lower case."""
    possessive: bool
    """The "Bob's next action: ..." form: about that player even when the speaker is unknown."""
    payload: Line | None
    """The text after the label, or the next line when the label ends its line (None: none)."""
    covers: tuple[int, ...]
    """Indices of the lines the label and its payload take."""


def name_labels(lines: list[Line], speaker: str | None) -> list[Label]:
    """Find the lines labelled with a player's name: "Alice: ...", "Bob's next action: ...".

    The possessive form takes any name; "Name:" only the games' player names and the speaker's
    (lower case), since "Note:" or "Answer:" label no player.
    """
    names = PLAYER_NAMES if speaker is None else (*PLAYER_NAMES, speaker)
    found: list[Label] = []
    for i, line in enumerate(lines):
        label = _label(line.text, names)
        if label is None:
            continue
        text = line.text
        covers: tuple[int, ...] = (i,)
        rest = len(text) - len(text[label.end() :].lstrip())
        payload: Line | None = None
        if rest < len(text):
            start = line.offset(rest)
            payload = Line(line.reply, start, line.end, clean(line.reply[start : line.end]))
        elif i + 1 < len(lines) and _label(lines[i + 1].text, names) is None:
            payload, covers = lines[i + 1], (i, i + 1)
        possessive = label.re is _POSSESSIVE_LABEL
        found.append(Label(i, label["name"], possessive, payload, covers))
    return found


def _label(text: str, names: tuple[str, ...]) -> re.Match[str] | None:
    """The name label that starts ``text``, or None."""
    possessive = _POSSESSIVE_LABEL.match(text) if "s " in text else None
    if possessive is not None:
        return possessive
    named = _NAME_LABEL.match(text) if ":" in text else None
    return named if named is not None and named["name"] in names else None


def _pieces(reply: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split one line around each question that an answer marker follows on the same line.

    "Answer: B. Can Bob reach d0? Answer: A" asks and answers an invented question on one line;
    cut into "Answer: B.", "Can Bob reach d0?" and "Answer: A", the question is seen as the start
    of another exchange, as it is on lines of its own.
    """
    if "?" not in reply[start:end]:
        return [(start, end)]
    cuts: list[int] = []
    for asked in _ASKED_INLINE.finditer(reply, start, end):
        sentence = reply.rfind(". ", cuts[-1] if cuts else start, asked.start())
        if sentence != -1:
            cuts.append(sentence + 1)
        cuts.append(asked.end())
    bounds = [start, *cuts, end]
    return list(pairwise(bounds))


Relation = Literal["own", "other", "plain"]


class _Item(NamedTuple):
    """A line of an option list."""

    position: int
    """The option its label (or text, for an unlettered item) points at."""
    relation: Relation
    """Its text is (or starts with) its own option's text, another option's, or neither."""
    echo: bool
    """A lettered line that is exactly one offered option ("C. place onion in c0")."""
    lettered: bool
    """It has a label."""


_CONTENT_WORD = re.compile(r"[a-z0-9]+")
_FUNCTION_WORDS = frozenset(
    "a an the is are am was were be been do does did to of in on at for with from by as and or "
    "so if then than that this these those it its i me my we us our you your he him his she her "
    "they them their what which who whom how why when where would will can could should shall "
    "may might must there here any some about just".split()
)
_SAME_WORD = {"move": "action", "moves": "action", "actions": "action", "step": "action"}
"""Words a restated question uses for the asked one's ("the best next move" for "action")."""
_SHORT_ANSWER_WORDS = 4
"""A line this short right after a question is taken as that question's answer ("Yes.")."""


def _content_words(text: str) -> set[str]:
    words = (_SAME_WORD.get(w, w) for w in _CONTENT_WORD.findall(clean(text)))
    return {w for w in words if w not in _FUNCTION_WORDS}


class Asked(NamedTuple):
    """The question a reply answers, to tell a restatement of it from the model's own question.

    Small models invent questions and answer them ("Do you know anything about this game?" then
    "Answer: Yes"); they also restate the question before answering it ("how would you describe
    the best next move for me?" then the answer). A question line restates the asked question
    when at least half of its content words are the asked question's; it is the model's own when
    it has two or more content words and fewer than half are; a shorter line cannot be told.
    """

    words: frozenset[str]
    """The content words of the asked question (function words dropped, synonyms merged)."""

    @classmethod
    def of(cls, question: str) -> Asked:
        """The asked question's words."""
        return cls(frozenset(_content_words(question)))

    def invented(self, line: str) -> bool:
        """Whether the question ``line`` is the model's own, not a restatement of this one."""
        words = _content_words(line)
        return len(words) >= 2 and 2 * len(words & self.words) < len(words)


def segments(lines: list[Line], opts: Options, asked: Asked | None = None) -> list[Segment]:
    """Split lines at option lists, new questions and new turns; drop lines that answer nothing.

    With the ``asked`` question known, a question of the model's own followed by an answer line
    or a short answer ends the reading: what follows answers that question, not this one.
    """
    items = [_item(line, opts) for line in lines]
    if not any(items) and not any(_TURN_LINE.match(line.text) for line in lines):
        return [Segment(lines, True)]
    blocks = _blocks(lines, items, opts) if any(items) else {}
    lone_echoes = {
        i: item.position for i, item in enumerate(items) if item and item.echo and i not in blocks
    }
    drop = set(lone_echoes) if len(set(lone_echoes.values())) > 1 else set()
    drop |= {
        i
        for i, item in enumerate(items)
        if item and item.lettered and item.position >= len(opts.norms) and i not in blocks
    }
    found: list[Segment] = []
    current: list[Line] = []
    text_before = False
    for i, line in enumerate(lines):
        boundary = blocks.get(i) or _turn_boundary(lines, i, text_before, asked)
        if boundary in ("soft", "hard"):
            found.append(Segment(current, boundary == "hard"))
            current = []
        elif boundary is None and i not in drop:
            current.append(line)
            text_before = True
    found.append(Segment(current, True))
    return found


Boundary = Literal["soft", "hard", "skip", "inside"]


def _turn_boundary(
    lines: list[Line], i: int, text_before: bool, asked: Asked | None
) -> Boundary | None:
    """A role line or a new question starts another exchange (None: an ordinary line).

    A question of the model's own (``asked`` known) answered on the next line, by an answer line
    or a short one ("Yes."), is a hard boundary: reading stops before it.
    """
    text = lines[i].text
    if _ENDS_QUESTION.search(text):
        following = lines[i + 1].text if i + 1 < len(lines) else None
        answered = following is not None and bool(ANSWER_LINE.match(following))
        if asked is not None and following is not None and asked.invented(text):
            if answered or len(following.split()) <= _SHORT_ANSWER_WORDS:
                return "hard"
        return "soft" if answered or _QUESTION_LABEL.match(text) else None
    if _ROLE.match(text):
        return "hard" if text_before else "skip"
    return "soft" if _QUESTION_LABEL.match(text) else None


def _item(line: Line, opts: Options) -> _Item | None:
    """Classify a line as an option-list item, or None."""
    lettered = _LETTERED.match(line.text)
    if lettered is not None:
        return _lettered_item(_position(lettered), normalise(lettered["text"]), opts)
    past_z = _PAST_Z.match(line.reply, line.start, line.end) if line.text[0] in "[\\]^." else None
    if past_z is not None:
        position = OPTION_LABELS.index(past_z["label"])
        return _lettered_item(position, normalise(past_z["text"]), opts)
    if len(line.text) > opts.longest + 4:
        return None
    bullet = _BULLET.match(line.text)
    named = opts.by_norm.get(normalise(bullet["text"] if bullet else line.text))
    return _Item(named[0], "own", False, False) if named else None


def _lettered_item(position: int, text: str, opts: Options) -> _Item:
    if position >= len(opts.norms):
        return _Item(position, "other", False, True)
    own = opts.norms[position]
    if text == own or text.startswith(own + " "):
        return _Item(position, "own", text == own, True)
    other = any(text == norm or text.startswith(norm + " ") for norm in opts.by_norm)
    return _Item(position, "other" if other else "plain", False, True)


def _blocks(lines: list[Line], items: list[_Item | None], opts: Options) -> dict[int, Boundary]:
    """Find option lists: line index -> "soft"/"hard" at a list's first line, "inside" after.

    A list is a run of items that has a header or question line just before it, or two or more
    items of which one is lettered or which name two options; the header and question belong to
    the list. One line of the offered list right after a question answers it.
    """
    found: dict[int, Boundary] = {}
    i = 0
    while i < len(lines):
        if items[i] is None:
            i += 1
            continue
        end = i
        while end < len(lines) and items[end] is not None:
            end += 1
        run = [item for item in items[i:end] if item is not None]
        first = i
        if first and _HEADER.match(lines[first - 1].text):
            first -= 1
        elif first and (start := _continues(lines[first - 1], run, opts)) is not None:
            first -= 1
            run.insert(0, start)
        # A question answered by one line of its own list ("...?" then "C. wait") is an answer.
        lone_answer = first == i and len(run) == 1 and run[0].relation == "own"
        if first and _is_question(lines[first - 1].text) and not lone_answer:
            first -= 1
        introduced = first < i
        # Two or more different items; one line repeated ("A", "A", "A") is no list.
        several = len({item.position for item in run}) > 1
        if introduced or several:
            echo = all(item.relation == "own" for item in run)
            invented = (introduced and not echo) or any(item.relation == "other" for item in run)
            found[first] = "hard" if invented else "soft"
            found.update({j: "inside" for j in range(first + 1, end)})
        i = end
    return found


def _continues(line: Line, run: list[_Item], opts: Options) -> _Item | None:
    """The item an answer line holds when it starts the list ``run`` continues, else None.

    "Answer: A. <text of A>" then "B. ...": the list recited after a marker. With other text
    after "A." ("Answer: A. I am not holding onion" then "B. ...", "C. ...") it takes two more
    lettered lines to show a list.
    """
    item = run[0]
    marker = ANSWER_LINE.match(line.text) if item.lettered and item.position else None
    if marker is None:
        return None
    lettered = _LETTERED.match(line.text[marker.end() :].lstrip())
    if lettered is None:
        return None
    before = _lettered_item(_position(lettered), normalise(lettered["text"]), opts)
    starts = before.position == item.position - 1 and (before.echo or len(run) > 1)
    return before if starts else None


def _position(lettered: re.Match[str]) -> int:
    """The option position (a=0) of a line matched by ``_LETTERED``."""
    letter = next(lettered[group] for group in "abcde" if lettered[group])
    return ord(letter) - ord("a")


def _is_question(text: str) -> bool:
    return bool(_ENDS_QUESTION.search(text) or _QUESTION_LABEL.match(text))
