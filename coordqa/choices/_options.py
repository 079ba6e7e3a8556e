"""Option lists prepared for reading, and what one span of reply text names among them.

A span names options by letter ("C", "(B)(C)", "Option A"), by an option's text (exact, inside a
sentence, fuzzy), by an abbreviation of the word that tells options apart ("Reveal Bob's Y color
cards" for Yellow), or by a paraphrase (inflected verbs, the speaker as subject: "Alice moves to
room 1" for "Move to Room 1"). Two options with the same text share every reading of that text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

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

OPTION_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
"""Option labels in order. Past Z the original release continues with the next ASCII characters
("[. move away."); after the backquote come lower-case letters, which would read as A-Z."""

MAX_OPTIONS = 26
"""The most options that can all be answered by letter (A-Z). Longer lists are read (options
past Z by their text only), but a caller that wants every option answerable by letter, as agents
do, offers at most this many."""

Kind = Literal["letter", "text", "fuzzy", "abbreviation", "paraphrase", "conflict"]

FILLER = frozenset({"a", "an", "the", "my", "to", "please", "i", "will", "then", "now", "s"})
"""Words a reply may add to an option's text without changing what it names."""

_CONNECTORS = frozenset(
    {"answer", "action", "option", "options", "choice", "choices", "letter", "is", "final"}
    | {"or", "and", "either", "both"}
)
_LEMMA_DROP = FILLER | {"our", "we", "towards", "toward", "shall", "should", "just"}
_MAX_ABBREVIATED = 2
"""An abbreviated span shortens at most this many words ("Reveal Bob's Y cards")."""
_NEGATIONS = frozenset({"not", "never", "t", "cannot"})
_NON_WORD = re.compile(r"[\W_]+")
_DIGIT = re.compile(r"\d")
_REF = (
    r"(?:\([a-z]\)|\[[a-z]\]|[a-z] ?[.):\-\u2013\u2014](?=\s|$|[(\[])"
    r"|[a-z](?=,?\s+(?:because|since|as)\b|\s*[(\[]))"
)
_LEADING_LETTERS = re.compile(
    rf"^[\s>#-]*(?:(?:option|choice|letter)\s+)?"
    rf"(?P<head>{_REF}(?:\s*(?:,|/|&|\bor\b|\band\b)?\s*{_REF})*)(?P<rest>.*)$",
    re.DOTALL,
)
_INLINE_ITEM = re.compile(r"(?:^|(?<=[\s,;]))(?:\((?P<paren>[a-z])\)|(?P<letter>[a-z])[.)])\s")
"""A labelled item inside a line: "a. ", "b) ", "(c) "."""
_HEAD_LETTER = re.compile(r"(?<![a-z])[a-z](?![a-z])")
_EXPLANATION = re.compile(r"[(;]|\.\s| - |,? (?:because|since|as|so)\b")
_REASON = re.compile(r"^\W*(?:because|since|as)\b")
_CONTRAST = re.compile(r"\s+instead\b|\s+rather(?:\s+than\b|\W*$)|,\s*not\b")
"""What may follow a choice and names what it replaces: "D instead (of A)", "D rather than A",
"D, not A". Not "a rather good move": "rather" counts before "than" or at the end only."""
_NOT_BUT = re.compile(r"^\W*not\s+(?!only\b)\S.*?,?\s+but\s+(?P<chosen>\S.*)$")
"""A choice stated against what it rejects: "not A but D" chooses D ("not only A but also D"
chooses both, so it is left to the usual reading)."""
_CHOOSING = (
    r"choose|chose|chosen|choosing|pick(?:ed|ing)?|select(?:ed|ing)?|go(?:ing)? with|opt for"
)
_STATED_LETTER = re.compile(
    rf"(?:^\W*|\b(?:{_CHOOSING})\s+)(?:option\s+)?[(\[]?(?P<letter>[a-z])[)\]]?"
    r"(?=\s*(?:[,.;:!?]|$)|\s+(?:instead|rather than|or|and|because|since|so|then|over)\b)"
)
"""A letter a sentence picks or supposes ("If I choose A, ...", "I would pick D instead", a line
that starts "D, so ..."): not "pick a card", whose "a" is followed by a word."""


def normalise(text: str) -> str:
    """Lower-case ``text`` and reduce punctuation, markdown and whitespace runs to one space.

    >>> normalise("  **Reveal** Bob's  rank_1 cards!")
    'reveal bob s rank 1 cards'
    """
    return _NON_WORD.sub(" ", text.casefold()).strip()


def ids(norm: str) -> tuple[str, ...]:
    """Return the tokens of a normalised text that carry a digit: ids that must match exactly.

    >>> ids("place onion in c0 then move to room 5")
    ('c0', '5')
    """
    return tuple(token for token in norm.split() if _DIGIT.search(token))


def _stem(word: str) -> str:
    """Strip one inflection suffix and a final "e", so "moves", "moving", "move" meet.

    >>> [_stem(w) for w in ("moves", "moving", "moved", "move", "press", "yes", "c0")]
    ['mov', 'mov', 'mov', 'mov', 'press', 'yes', 'c0']
    """
    if not word.isalpha():
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix != "s" or not word.endswith(("ss", "us", "is")):
                word = word[: -len(suffix)]
                break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


PLAYER_NAMES = ("alice", "bob")
"""The names coordqa's games give their two players (``coordqa.games.base.PLAYER_NAMES``, lower
case; a test keeps them equal): a reply may label its lines with them ("Bob: wait")."""
_SUBJECTS = frozenset(
    _stem(word) for word in (*PLAYER_NAMES, "he", "she", "they", "you", "partner")
)
"""Who may be named before an action ("Alice moves to room 1") in a paraphrase (as stems)."""


def lemma(norm: str) -> str:
    """Return the content of a normalised text: stems, without articles, fillers or "to".

    Two texts with the same lemma say the same thing in other words.

    >>> lemma("i will move towards the forest area") == lemma("move to forest area")
    True
    """
    return " ".join(_stem(word) for word in norm.split() if word not in _LEMMA_DROP)


@dataclass(frozen=True)
class Options:
    """Validated options with their normal forms, computed once per option list."""

    norms: tuple[str, ...]
    """Normalised text of each option (two options may share one)."""
    ids: tuple[tuple[str, ...], ...]
    """The id tokens (those with a digit) of each option."""
    words: tuple[frozenset[str], ...]
    """The words of each option's normalised text."""
    by_norm: dict[str, tuple[int, ...]]
    """Normalised text -> the options that have it."""
    longest: int
    """Length of the longest normalised option text."""

    @cached_property
    def by_lemma(self) -> dict[str, tuple[int, ...]]:
        """Lemma -> the options that have it (computed when a paraphrase is first looked for)."""
        found: dict[str, list[int]] = {}
        for i, norm in enumerate(self.norms):
            found.setdefault(lemma(norm) or norm, []).append(i)
        return {key: tuple(value) for key, value in found.items()}

    @property
    def lettered(self) -> int:
        """How many options can be answered by letter (A-Z)."""
        return min(len(self.norms), MAX_OPTIONS)


@dataclass(frozen=True)
class Match:
    """The options one span committed to."""

    candidates: tuple[int, ...]
    """Sorted option indices (empty only when the span named nothing on the list)."""
    kind: Kind
    """How the span named them."""
    score: float | None = None
    """Best fuzzy similarity when ``kind`` is fuzzy or abbreviation."""
    off_list: bool = False
    """The span also named a letter that is not on the list (it cannot be a clear choice)."""


@lru_cache(maxsize=1024)
def prepare(options: tuple[str, ...]) -> Options:
    """Validate an option list and normalise it (cached: agents reuse the same lists)."""
    if not options:
        raise ConfigError("choose needs at least one option, got none")
    by_norm: dict[str, list[int]] = {}
    for i, text in enumerate(options):
        norm = normalise(text) if isinstance(text, str) else ""
        problem = _option_problem(text, norm)
        if problem:
            raise ConfigError(
                f"option {i} ({text!r}) {problem}: options must be non-blank single-line texts "
                "that are not letter references such as 'B' or 'Option C'"
            )
        by_norm.setdefault(norm, []).append(i)
    norms = tuple(normalise(text) for text in options)
    return Options(
        norms=norms,
        ids=tuple(ids(n) for n in norms),
        words=tuple(frozenset(n.split()) for n in norms),
        by_norm={k: tuple(v) for k, v in by_norm.items()},
        longest=max(len(norm) for norm in norms),
    )


def _option_problem(text: object, norm: str) -> str | None:
    """Say why an option text cannot be offered, or None when it can."""
    if not norm or not isinstance(text, str):
        return "is not a non-blank string"
    if len(text.splitlines()) > 1:
        return "spans several lines"
    if letter_positions(norm) is not None:
        return "reads as a letter answer"
    return None


def letter_positions(norm: str) -> tuple[int, ...] | None:
    """Return the letter positions (a=0) of a normalised span made only of letters and connectors.

    >>> letter_positions(normalise("**Option (C)**.")), letter_positions("b or d")
    ((2,), (1, 3))
    >>> letter_positions("a good move") is None
    True
    """
    tokens = norm.split()
    letters = [t for t in tokens if len(t) == 1 and "a" <= t <= "z"]
    if not letters or len(letters) + sum(t in _CONNECTORS for t in tokens) != len(tokens):
        return None
    return tuple(sorted({ord(t) - ord("a") for t in letters}))


def _by_letters(positions: tuple[int, ...], opts: Options) -> Match | None:
    """The options some letters name; letters past the list make the span unclear, or empty."""
    on_list = tuple(p for p in positions if p < opts.lettered)
    if not on_list:
        return None
    return Match(on_list, "letter", off_list=len(on_list) < len(positions))


def resolve(
    span: str, opts: Options, threshold: float, *, loose: bool, contained: bool
) -> Match | None:
    """Return what ``span`` (a lower-case line or marker payload) names: letters or option text.

    ``loose`` (marker payloads, already known to be answers) accepts leading letters followed
    by any explanation; otherwise the letters must stand alone or precede an option's text or a
    "because". ``contained`` also accepts option text inside a sentence (marker payloads and
    one-line replies; in longer replies the last line is often explanation), trying the text
    before any explanation first: "3 (c0 has 0 onions)" names "3", not also "0", but never in a
    span that picks or supposes a letter ("if i choose a, bob has to wait"). Letters may carry
    their contrast ("d instead", "d, not a", "not a but d"). An option list on one line ("A. yes
    B. no") names nothing.
    """
    turned = _NOT_BUT.match(span)
    if turned is not None:
        span = turned["chosen"]
    norm = normalise(span)
    exact = opts.by_norm.get(norm)
    if exact is not None:
        return Match(exact, "text")
    if _recites(span, opts):
        return None
    positions = letter_positions(norm)
    if positions is None:
        positions = _contrasted_letters(span)
    if positions is not None:
        return _by_letters(positions, opts)
    leading = _LEADING_LETTERS.match(span)
    if leading is not None:
        match = _letters_then_text(leading, opts, threshold, loose=loose)
        if match is not None:
            return match
    contained = contained and not _states_letter(span, opts)
    head = _EXPLANATION.split(span, maxsplit=1)[0] if contained else span
    match = (
        text_match(normalise(head), opts, threshold, contained=True, loose=loose)
        if head != span
        else None
    )
    return match or text_match(norm, opts, threshold, contained=contained, loose=loose)


def _contrasted_letters(span: str) -> tuple[int, ...] | None:
    """The letters a span chooses before its contrast: "B instead.", "B or D rather than A".

    >>> _contrasted_letters("d, not a."), _contrasted_letters("a rather good move")
    ((3,), None)
    """
    contrast = _CONTRAST.search(span)
    if contrast is None or contrast.start() == 0:
        return None
    return letter_positions(normalise(span[: contrast.start()]))


def _states_letter(span: str, opts: Options) -> bool:
    """True when a sentence picks or supposes a letter of the list ("If I choose A, ...").

    Then an option's text inside that sentence ("... Bob has to wait") is the reasoning around
    a letter, never the choice: the letter is read by the letter rules, or nothing is.

    >>> opts = prepare(("move up", "wait"))
    >>> _states_letter("if i choose a, bob has to wait.", opts)
    True
    >>> _states_letter("i pick a card and wait", opts), _states_letter("if i pick h, wait", opts)
    (False, False)
    """
    return any(
        ord(found["letter"]) - ord("a") < opts.lettered for found in _STATED_LETTER.finditer(span)
    )


def _recites(span: str, opts: Options) -> bool:
    """True when ``span`` is an option list on one line: "A. yes, B. no", "(A) wait (B) ...".

    Two or more items with different labels, each exactly an option's text: the list recited (or
    re-lettered: "(A) yes (C) no"), no choice.
    """
    items = list(_INLINE_ITEM.finditer(span))
    if len(items) < 2 or len({item["letter"] or item["paren"] for item in items}) < len(items):
        return False
    ends = [item.start() for item in items[1:]] + [len(span)]
    return all(
        normalise(span[item.end() : end]) in opts.by_norm
        for item, end in zip(items, ends, strict=True)
    )


def _letters_then_text(
    leading: re.Match[str], opts: Options, threshold: float, *, loose: bool
) -> Match | None:
    """Read "C. place onion in c0", "(A)(B)(C)", "B (No)": letters, then what the text names.

    Text that names another option than the letters makes the span ambiguous; text shared by
    the lettered option and others (duplicate option texts) is decided by the letter.
    """
    positions = tuple(sorted({ord(c) - ord("a") for c in _HEAD_LETTER.findall(leading["head"])}))
    letters = _by_letters(positions, opts)
    after = leading["rest"]
    named = text_match(normalise(after), opts, threshold, contained=False, loose=False)
    head = _EXPLANATION.split(after, maxsplit=1)[0]
    if named is None and head != after:
        # "C. wait (stay one timestep)": the text before the explanation names an option.
        named = text_match(normalise(head), opts, threshold, contained=False, loose=False)
    if named is not None and named.candidates:
        lettered = letters.candidates if letters else ()
        own = {opts.norms[p] for p in lettered}
        if lettered and all(opts.norms[i] in own for i in named.candidates):
            return letters
        union = tuple(sorted({*lettered, *named.candidates}))
        return Match(union, "letter", off_list=len(lettered) < len(positions))
    if letters is not None and (loose or not after.strip() or _REASON.match(after)):
        return letters
    return None


def text_match(
    norm: str, opts: Options, threshold: float, *, contained: bool, loose: bool
) -> Match | None:
    """Match option text in a normalised span.

    In order: the exact text, (if ``contained``) the text inside the span, a fuzzy match or an
    abbreviation, then the same content in other words: the same lemma, possibly after a subject
    ("Alice moves to room 1"), or, in a marker payload (``loose``), an option's lemma inside the
    span ("Alice moves to room 8 to close the door"). Outside marker payloads a sentence that
    merely mentions an option in other words ("Moving to room 5 is risky") names nothing.
    """
    if not norm:
        return None
    exact = opts.by_norm.get(norm)
    if exact is not None:
        return Match(exact, "text")
    hits = contained_in(norm, opts.by_norm) if contained else ()
    if hits:
        return Match(hits, "text")
    match = _fuzzy(norm, opts, threshold)
    if match is not None:
        return match
    span_lemma = lemma(norm)
    if not span_lemma:
        return None
    subject, _, predicate = span_lemma.partition(" ")
    same = opts.by_lemma.get(span_lemma) or (
        opts.by_lemma.get(predicate) if subject in _SUBJECTS else None
    )
    if same is not None:
        return Match(same, "paraphrase")
    hits = contained_in(span_lemma, opts.by_lemma) if contained and loose else ()
    return Match(hits, "paraphrase") if hits else None


def contained_in(norm: str, texts: Mapping[str, tuple[int, ...]]) -> tuple[int, ...]:
    """Return the options whose text occurs in ``norm`` as whole words, not negated.

    An occurrence inside an occurrence of a longer option does not count, so "pick up onion
    from o0" names that option only, not also "pick up onion"; nor does one after "not".

    >>> table = {"pick up onion": (0,), "pick up onion from o0": (1,), "wait": (2,)}
    >>> contained_in("i will pick up onion from o0 and not wait", table)
    (1,)
    """
    padded = f" {norm} "
    found = {
        text: [span for span in _occurrences(padded, f" {text} ") if not _negated(padded, span[0])]
        for text in texts
    }
    spans = [(start, end, text) for text, occ in found.items() for start, end in occ]
    hits: set[int] = set()
    for text, occ in found.items():
        if any(
            not any(s <= start and end <= e and other != text for s, e, other in spans)
            for start, end in occ
        ):
            hits.update(texts[text])
    return tuple(sorted(hits))


def _occurrences(text: str, part: str) -> list[tuple[int, int]]:
    spans = []
    start = text.find(part)
    while start != -1:
        spans.append((start, start + len(part)))
        start = text.find(part, start + 1)
    return spans


def _negated(padded: str, start: int) -> bool:
    """True when the word before ``start`` negates what follows ("do not wait", "don't")."""
    before = padded[:start].rsplit(None, 1)
    return bool(before) and before[-1] in _NEGATIONS


def _fuzzy(norm: str, opts: Options, threshold: float) -> Match | None:
    """Return the options that ``norm`` matches loosely; several passing means ambiguous.

    An option passes when its ids equal the span's and the two are similar (ratio at least
    ``threshold``, extra words typos or fillers), or the span abbreviates it: every non-filler
    word of the span is a word of the option ("play card 1" for "I should Play Card 1") or a
    prefix of a word the span lacks ("reveal bob s y cards" for Yellow).
    """
    span_ids, words = ids(norm), norm.split()
    present = set(words)
    content = present - FILLER
    passing: list[tuple[float, int, bool]] = []
    for i, option in enumerate(opts.norms):
        if opts.ids[i] != span_ids:
            continue
        score = fuzz.ratio(norm, option)
        option_words = opts.words[i]
        similar = score >= threshold and _words_compatible(words, present, option_words)
        if similar or (content and content <= option_words):
            passing.append((score, i, False))
        elif content and _abbreviated(content, present, option_words):
            passing.append((score, i, True))
    if not passing:
        return None
    kind: Kind = "abbreviation" if any(abbr for _, _, abbr in passing) else "fuzzy"
    return Match(tuple(sorted(i for _, i, _ in passing)), kind, max(s for s, _, _ in passing))


def _words_compatible(words: list[str], present: set[str], option_words: frozenset[str]) -> bool:
    """True when every span word missing from the option is filler or a typo of an option word.

    >>> _words_compatible(["rde", "cards"], {"rde", "cards"}, frozenset({"red", "cards"}))
    True
    >>> _words_compatible(["green", "cards"], {"green", "cards"}, frozenset({"red", "cards"}))
    False
    """
    missing = [w for w in option_words if w not in present]
    return all(
        any(fuzz.ratio(word, m) >= WORD_SIMILARITY for m in missing)
        for word in words
        if word not in option_words and word not in FILLER
    )


def _abbreviated(content: set[str], present: set[str], option_words: frozenset[str]) -> bool:
    """True when every content word the option lacks abbreviates a word the span lacks.

    An abbreviation is a prefix ("y" for "yellow"), or, for the option's initials, the expansion
    (the option's "r" for the span's "red").

    >>> yellow = frozenset("reveal bob s yellow color cards".split())
    >>> _abbreviated({"reveal", "bob", "y", "cards"}, {"reveal", "bob", "s", "y", "cards"}, yellow)
    True
    >>> _abbreviated({"place", "into", "c0"}, set(), frozenset({"place", "in", "c0"}))
    False
    """
    extra = content - option_words
    if len(extra) > _MAX_ABBREVIATED:
        return False
    missing = [w for w in option_words if w not in present and w.isalpha()]
    return all(word.isalpha() and any(_prefix_of(word, m) for m in missing) for word in extra)


def _prefix_of(word: str, option_word: str) -> bool:
    if len(word) < len(option_word):
        return option_word.startswith(word)
    return len(option_word) == 1 and word.startswith(option_word)
