"""THE one way a free-text model reply is mapped to one of a lettered list of options.

CoordinationQA scoring and LLM agents choosing game actions both call :func:`choose`, so a reply
is read the same way whether it answers a question or moves a game piece. The original scorer took
the first capital letter followed by "." or ")" anywhere in a reply ("OK." decided answers) and
turned failures into a fixed wrong letter; here every reply gets an explicit outcome: ``chosen``,
``ambiguous`` (it committed to several options) or ``no_answer``. Nothing is ever guessed.

How a reply is read, first rule that yields something wins:

1. The reply is one line that *is* one option's text (case, punctuation, markdown ignored).
2. The **last** answer marker whose payload names something: ``Answer:``, ``Action:``,
   ``Final answer:``, ``the (best) answer/action/option/move is``, ``I choose/pick/select/go
   with``. Earlier markers are drafts of a chain of thought, so a later one overrides them even
   when they disagree. The payload (the rest of the line, or the next line when the marker ends
   its line) is read loosely: letters (``C``, ``(C)``, ``C.``, ``Option C``, ``B or C``), a letter
   followed by text (``C. pick up onion``: if the text names another option the reply is
   ambiguous), or option text (exact, contained, then fuzzy).
3. The last non-blank line, read strictly: only a line that *is* an answer counts (a letter
   reference, a letter followed by its option's text or by "because ...", or an option's text,
   exact or fuzzy), because prose like "(B) is bad, so ..." must not decide.
4. The first line of a multi-line reply, when it is a letter reference ("C" then an explanation).

Option texts win over letters only when a whole span equals an option; options that themselves
read as a letter answer ("B", "Option C", "answer: a") are rejected with ConfigError, so a
reply that is exactly one option's text, or exactly its decorated letter, always maps to it.

Fuzzy matching (:data:`FUZZY_THRESHOLD`) accepts typos and small rewordings but never across
identifiers: numbers and ids such as ``c0``/``c1`` or ``rank 1``/``rank 2`` must match exactly,
and every word of the reply that is not in the option must look like a typo of a missing option
word or be a filler word, so "Reveal Bob's Green color cards" is not read as "... Red ...".
A reply whose words are all words of one option (same ids) is read as an abbreviation of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from rapidfuzz import fuzz

from coordqa.errors import ConfigError

FUZZY_THRESHOLD = 85.0
"""Minimum ``rapidfuzz.fuzz.ratio`` (0-100) between a normalised span and a normalised option.

85 accepts "place the onion into c0" for "place onion in c0" (85.0), "play card 2" for "Play my
Card 2" (88) and typos ("plce onion in c0", 97), and rejects "Play my Card 2" vs "Discard my Card
2" (71) and "pick up onion" vs "pick up onion from o0" (76.5). Substituted words and ids are
rejected by separate checks, whatever the ratio. A span whose words are all words of an option
with the same ids ("play card 1" for "I should Play Card 1") is accepted as an abbreviation
whatever its ratio.
"""

WORD_SIMILARITY = 60.0
"""Minimum ``fuzz.ratio`` for an extra reply word to count as a typo of a missing option word."""

MAX_OPTIONS = 26
"""Options are lettered A-Z."""

Outcome = Literal["chosen", "ambiguous", "no_answer"]
OUTCOMES: tuple[Outcome, ...] = ("chosen", "ambiguous", "no_answer")
METHODS = (
    "option_text_exact",
    "marker_letter",
    "marker_text",
    "marker_fuzzy",
    "final_line_letter",
    "final_line_text",
    "final_line_fuzzy",
    "first_line_letter",
    "none",
)
"""Every value of :attr:`Choice.method`: where the decision came from, and how."""

_FILLER = frozenset({"a", "an", "the", "my", "to", "please", "i", "will", "then", "now", "s"})
_CONNECTORS = frozenset(
    {"answer", "action", "option", "options", "choice", "choices", "letter", "is", "final"}
    | {"or", "and", "either", "both"}
)
_MARKDOWN = re.compile(r"[*_`~]")
_NON_WORD = re.compile(r"[\W_]+")
_ID = re.compile(r"\S*\d\S*")
_KEYWORD = re.compile(r"answer|action|choice|option|move|choose|pick|select|go with")
_MARKER_FORMS = (
    # "Answer: C", "Action - wait", "(B) is bad, so answer: D"; not "Bob's last action: wait".
    (
        re.compile(r"(?:answer|action|choice)(?: ?:| - )"),
        re.compile(r"(?:\A|[.!?;,:)\]>#|-] ?|\b(?:so|thus|hence|therefore|my|our|final) )$"),
    ),
    # "The answer is C", "the best move is (D)"; not "Bob's next action is ...".
    (
        re.compile(r"(?:answer|action|choice|option|move) (?:is|would be|will be)\b:?"),
        re.compile(r"\b(?:the|my|our) (?:(?:final|best|correct|right|optimal|next) )?$"),
    ),
    # "I choose (B)", "I'd go with C"; not "If I choose B" nor "I'll pick up onion".
    (
        re.compile(r"(?:choose|pick(?! up)|select|go with)\b"),
        re.compile(r"(?<!\bif )\b(?:i|we|let'?s)(?: (?:would|will|shall|should)|'d|'ll)? $"),
    ),
)
_LEADING_LETTER = re.compile(
    r"^[\s>#-]*(?:(?:option|choice|letter)\s+)?"
    r"(?:\((?P<a>[a-z])\)|\[(?P<b>[a-z])\]|(?P<c>[a-z])\s*[.):\-\u2013\u2014](?=\s|$)"
    r"|(?P<d>[a-z])(?=,?\s+(?:because|since|as)\b|\s+\())(?P<rest>.*)$",
    re.DOTALL,
)
_EXPLANATION = re.compile(r"[(;]|\.\s| - |,? (?:because|since|as|so)\b")
_REASON = re.compile(r"^\W*(?:because|since|as)\b")
_ECHO = re.compile(r"^\s*(?P<letter>[a-z])[.)]\s*(?P<text>.+)$")


def option_letter(index: int) -> str:
    """Return the letter of the option at 0-based ``index``.

    >>> option_letter(0), option_letter(25)
    ('A', 'Z')
    """
    if not 0 <= index < MAX_OPTIONS:
        raise ConfigError(
            f"option index {index} has no letter: options are lettered A-Z, so the index must be "
            f"in 0..{MAX_OPTIONS - 1}; offer at most {MAX_OPTIONS} options"
        )
    return chr(ord("A") + index)


def format_options(options: Sequence[str]) -> str:
    """Return the lettered option list that prompts show, one ``"A. text"`` line per option.

    >>> print(format_options(["pick up onion from o0", "wait"]))
    A. pick up onion from o0
    B. wait
    """
    _prepare(tuple(options))
    return "\n".join(f"{option_letter(i)}. {text}" for i, text in enumerate(options))


@dataclass(frozen=True)
class Choice:
    """What a reply committed to, and how that was decided."""

    outcome: Outcome
    """``chosen`` (exactly one option), ``ambiguous`` (several) or ``no_answer``."""
    index: int | None
    """0-based index of the chosen option; None unless ``outcome == "chosen"``."""
    candidates: tuple[int, ...]
    """The options the reply committed to, ascending: one if chosen, several if ambiguous."""
    method: str
    """Which rule decided, one of :data:`METHODS`."""
    score: float | None = None
    """The fuzzy similarity (0-100) when a fuzzy match decided, else None."""

    def __post_init__(self) -> None:
        count = len(self.candidates)
        count_ok = {"chosen": count == 1, "no_answer": count == 0}.get(self.outcome, count >= 2)
        index_ok = self.index == (self.candidates[0] if self.outcome == "chosen" else None)
        known = self.outcome in OUTCOMES and self.method in METHODS
        if not (known and count_ok and index_ok):
            raise ConfigError(
                f"inconsistent Choice {self!r}: outcome must be one of {OUTCOMES}, method one of "
                f"{METHODS}; 'chosen' needs index == the single candidate, 'ambiguous' two or "
                "more candidates and no index, 'no_answer' neither"
            )

    @property
    def chosen(self) -> bool:
        """True when the reply committed to exactly one option."""
        return self.outcome == "chosen"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-friendly dict; :meth:`from_dict` reads it back."""
        return {
            "outcome": self.outcome,
            "index": self.index,
            "candidates": list(self.candidates),
            "method": self.method,
            "score": self.score,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Choice:
        """Rebuild a Choice from :meth:`to_dict` output, validating it."""
        fields = ("outcome", "index", "candidates", "method", "score")
        if set(data) != set(fields):
            raise ConfigError(f"a Choice dict needs exactly the keys {fields}, got {sorted(data)}")
        return cls(
            outcome=data["outcome"],
            index=data["index"],
            candidates=tuple(data["candidates"]),
            method=data["method"],
            score=data["score"],
        )


_NO_ANSWER = Choice("no_answer", None, (), "none")


def choose(
    reply: str | None, options: Sequence[str], *, fuzzy_threshold: float = FUZZY_THRESHOLD
) -> Choice:
    """Map a free-text reply to one of ``options`` (see the module docstring for the rules).

    Args:
        reply: The model's reply; None or blank is ``no_answer``.
        options: The option texts in letter order (A first).
        fuzzy_threshold: Minimum fuzzy similarity (0-100] for a non-exact option text.

    Returns:
        The outcome; never a default option.

    Raises:
        ConfigError: Invalid options (none, more than 26, blank, multi-line, duplicates after
            normalisation, or reading as a letter answer) or a threshold outside (0, 100].

    >>> choose("Explanation: (B) is bad. Answer: C", ["wait", "move away", "pick up onion"]).index
    2
    """
    opts = _prepare(tuple(options))
    if not 0 < fuzzy_threshold <= 100:
        raise ConfigError(f"fuzzy_threshold must be in (0, 100], got {fuzzy_threshold}")
    lines = _answer_lines(reply or "", opts)
    if not lines:
        return _NO_ANSWER
    exact = opts.index.get(_normalise(lines[0])) if len(lines) == 1 else None
    if exact is not None:
        return Choice("chosen", exact, (exact,), "option_text_exact")
    for payload in reversed(_marker_payloads(lines)):
        match = _resolve(payload, opts, fuzzy_threshold, loose=True, contained=True)
        if match is not None:
            return match.choice("marker")
    match = _resolve(lines[-1], opts, fuzzy_threshold, loose=False, contained=len(lines) == 1)
    if match is not None:
        return match.choice("final_line")
    first = _letter_list(_normalise(lines[0]), len(opts.norms)) if len(lines) > 1 else None
    if first is not None:
        return _Match(first, "letter").choice("first_line")
    return _NO_ANSWER


def is_correct(choice: Choice, correct: Sequence[int]) -> bool:
    """True when ``choice`` chose exactly one option and it is among the ``correct`` indices.

    >>> is_correct(Choice("chosen", 2, (2,), "marker_letter"), [1, 2])
    True
    """
    if not correct:
        raise ConfigError("is_correct needs at least one correct option index, got none")
    return choice.chosen and choice.index in correct


@dataclass(frozen=True)
class _Options:
    """Validated options with their normalised forms, computed once per option list."""

    norms: tuple[str, ...]
    """Normalised option texts."""
    ids: tuple[tuple[str, ...], ...]
    """The id tokens (those with a digit) of each option."""
    index: dict[str, int]
    """Normalised text -> option index."""


@dataclass(frozen=True)
class _Match:
    """The options one span committed to."""

    candidates: tuple[int, ...]
    """Sorted option indices, at least one."""
    kind: Literal["letter", "text", "fuzzy"]
    """How the span named them."""
    score: float | None = None
    """Best fuzzy similarity when ``kind == "fuzzy"``."""

    def choice(self, source: str) -> Choice:
        """Return the Choice this match makes when found by ``source`` (e.g. ``"marker"``)."""
        method = f"{source}_{self.kind}"
        if len(self.candidates) == 1:
            return Choice("chosen", self.candidates[0], self.candidates, method, self.score)
        return Choice("ambiguous", None, self.candidates, method, self.score)


@lru_cache(maxsize=1024)
def _prepare(options: tuple[str, ...]) -> _Options:
    """Validate an option list and normalise it (cached: agents reuse the same lists)."""
    if not 1 <= len(options) <= MAX_OPTIONS:
        raise ConfigError(f"choose needs 1 to {MAX_OPTIONS} options, got {len(options)}")
    index: dict[str, int] = {}
    for i, text in enumerate(options):
        norm = _normalise(text) if isinstance(text, str) else ""
        problem = _option_problem(text, norm, index)
        if problem:
            raise ConfigError(
                f"option {i} ({text!r}) {problem}: options must be distinct single-line texts "
                "(compared ignoring case, punctuation and spacing) that are not letter references"
            )
        index[norm] = i
    norms = tuple(index)
    return _Options(norms, tuple(_ids(n) for n in norms), index)


def _option_problem(text: str, norm: str, seen: dict[str, int]) -> str | None:
    """Say why an option text cannot be offered, or None when it can."""
    if not norm:
        return "is not a non-blank string"
    if len(text.splitlines()) > 1:
        return "spans several lines"
    if norm in seen:
        return f"duplicates option {seen[norm]}"
    if _letter_list(norm, MAX_OPTIONS) is not None:
        return "reads as a letter answer"
    return None


def _normalise(text: str) -> str:
    """Lower-case ``text`` and reduce punctuation, markdown and whitespace runs to one space.

    >>> _normalise("  **Reveal** Bob's  rank_1 cards!")
    'reveal bob s rank 1 cards'
    """
    return _NON_WORD.sub(" ", text.casefold()).strip()


def _ids(norm: str) -> tuple[str, ...]:
    """Return the tokens of a normalised text that carry a digit: ids that must match exactly.

    >>> _ids("place onion in c0 then move to room 5")
    ('c0', '5')
    """
    return tuple(_ID.findall(norm))


def _answer_lines(reply: str, opts: _Options) -> list[str]:
    """Return the reply's non-blank lines, lower-case, markdown removed, minus an echoed list.

    A reply that repeats two or more lines of the lettered list ("A. wait") is echoing the
    question; those lines name no answer and would otherwise decide the final line.
    """
    lines = [" ".join(line.split()) for line in _MARKDOWN.sub(" ", reply.lower()).splitlines()]
    lines = [line for line in lines if line]
    echoed = {i for i, line in enumerate(lines) if _is_echo(line, opts)}
    return [line for i, line in enumerate(lines) if i not in echoed] if len(echoed) > 1 else lines


def _is_echo(line: str, opts: _Options) -> bool:
    """True when ``line`` is one line of the lettered option list, as the prompt shows it."""
    found = _ECHO.match(line)
    if found is None:
        return False
    position = ord(found["letter"]) - ord("a")
    return position < len(opts.norms) and _normalise(found["text"]) == opts.norms[position]


def _marker_payloads(lines: list[str]) -> list[str]:
    """Return what follows each answer marker, in reply order (the next line if none).

    Lines are lower-case with single spaces. Keywords are found first and the marker's form and
    left context checked only there: one regex with the contexts as look-behinds was 10x slower.
    """
    payloads = []
    for number, line in enumerate(lines):
        for keyword in _KEYWORD.finditer(line):
            start = keyword.start()
            end = _marker_end(line, start) if start == 0 or not line[start - 1].isalnum() else None
            if end is None:
                continue
            payload = line[end:].strip()
            if not payload and number + 1 < len(lines):
                payload = lines[number + 1]
            payloads.append(payload)
    return payloads


def _marker_end(line: str, start: int) -> int | None:
    """Return where the marker whose keyword starts at ``start`` ends, or None if it is none."""
    before = line[max(0, start - 40) : start]
    for form, context in _MARKER_FORMS:
        found = form.match(line, start)
        if found and context.search(before):
            return found.end()
    return None


def _resolve(
    span: str, opts: _Options, threshold: float, *, loose: bool, contained: bool
) -> _Match | None:
    """Return what ``span`` (a lower-case line or marker payload) names: option text or letters.

    ``loose`` (marker payloads, already known to be answers) accepts a leading letter followed
    by any explanation; otherwise the letter must stand alone or precede its option's text or a
    "because". ``contained`` also accepts option text inside a sentence (marker payloads and
    one-line replies; in longer replies the last line is often explanation), trying the text
    before any explanation first: "3 (c0 has 0 onions)" names "3", not also "0".
    """
    norm = _normalise(span)
    exact = opts.index.get(norm)
    if exact is not None:
        return _Match((exact,), "text")
    letters = _letter_list(norm, len(opts.norms))
    if letters is not None:
        return _Match(letters, "letter")
    leading = _LEADING_LETTER.match(span)
    position = _letter_position(leading, len(opts.norms))
    if leading is not None and position is not None:
        after = leading["rest"]
        rest = _text_match(_normalise(after), opts, threshold, contained=False)
        if rest is not None:
            return _Match(tuple(sorted({position, *rest.candidates})), "letter")
        if loose or not after.strip() or _REASON.match(after):
            return _Match((position,), "letter")
    head = _EXPLANATION.split(span, maxsplit=1)[0] if contained else span
    match = _text_match(_normalise(head), opts, threshold, contained=True) if head != span else None
    return match or _text_match(norm, opts, threshold, contained=contained)


def _letter_position(leading: re.Match[str] | None, count: int) -> int | None:
    """Return the option position of a leading letter, or None when absent or out of range."""
    if leading is None:
        return None
    letter = leading["a"] or leading["b"] or leading["c"] or leading["d"]
    position = ord(letter) - ord("a")
    return position if position < count else None


def _letter_list(norm: str, count: int) -> tuple[int, ...] | None:
    """Return the option positions of a normalised span made only of letters and connectors.

    Out-of-range letters make the span name nothing (never a crash, never a wrap-around).

    >>> _letter_list(_normalise("**Option (C)**."), 4), _letter_list("b or d", 4)
    ((2,), (1, 3))
    >>> _letter_list("a good move", 4) is None
    True
    >>> _letter_list("answer z", 4) is None
    True
    """
    tokens = norm.split()
    letters = [t for t in tokens if len(t) == 1 and "a" <= t <= "z"]
    if not letters or len(letters) + sum(t in _CONNECTORS for t in tokens) != len(tokens):
        return None
    positions = sorted({ord(t) - ord("a") for t in letters})
    return tuple(positions) if positions[-1] < count else None


def _text_match(norm: str, opts: _Options, threshold: float, *, contained: bool) -> _Match | None:
    """Match option text in a normalised span: exact, then (if ``contained``) inside, then fuzzy."""
    if not norm:
        return None
    if norm in opts.index:
        return _Match((opts.index[norm],), "text")
    hits = _contained(norm, opts.norms) if contained else ()
    return _Match(hits, "text") if hits else _fuzzy(norm, opts, threshold)


def _contained(norm: str, options: tuple[str, ...]) -> tuple[int, ...]:
    """Return the options whose text occurs in ``norm`` as whole words.

    An occurrence inside an occurrence of a longer option does not count, so "pick up onion
    from o0" names that option only, not also "pick up onion".

    >>> _contained("i will pick up onion from o0", ("pick up onion", "pick up onion from o0"))
    (1,)
    """
    padded = f" {norm} "
    found = {i: _occurrences(padded, f" {o} ") for i, o in enumerate(options)}
    spans = [(start, end, i) for i, occ in found.items() for start, end in occ]
    return tuple(
        i
        for i, occ in found.items()
        if any(
            not any(s <= start and end <= e and j != i for s, e, j in spans) for start, end in occ
        )
    )


def _occurrences(text: str, part: str) -> list[tuple[int, int]]:
    spans = []
    start = text.find(part)
    while start != -1:
        spans.append((start, start + len(part)))
        start = text.find(part, start + 1)
    return spans


def _fuzzy(norm: str, opts: _Options, threshold: float) -> _Match | None:
    """Return the options that ``norm`` matches loosely; several passing means ambiguous.

    An option passes when its ids equal the span's and either the two are similar (ratio at
    least ``threshold``, extra words typos or fillers) or the span abbreviates it (every
    non-filler word of the span is a word of the option: "play card 1" for "I should Play
    Card 1").
    """
    ids, words = _ids(norm), set(norm.split()) - _FILLER
    passing = []
    for i, option in enumerate(opts.norms):
        if opts.ids[i] != ids:
            continue
        score = fuzz.ratio(norm, option)
        similar = score >= threshold and _words_compatible(norm, option)
        if similar or (words and words <= set(option.split())):
            passing.append((score, i))
    if not passing:
        return None
    return _Match(tuple(sorted(i for _, i in passing)), "fuzzy", max(s for s, _ in passing))


def _words_compatible(norm: str, option: str) -> bool:
    """True when every reply word missing from the option is filler or a typo of an option word.

    >>> _words_compatible("reveal bob s rde color cards", "reveal bob s red color cards")
    True
    >>> _words_compatible("reveal bob s green color cards", "reveal bob s red color cards")
    False
    """
    words, option_words = norm.split(), option.split()
    missing = [w for w in option_words if w not in words]
    return all(
        any(fuzz.ratio(word, m) >= WORD_SIMILARITY for m in missing)
        for word in words
        if word not in option_words and word not in _FILLER
    )
