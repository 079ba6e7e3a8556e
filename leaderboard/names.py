"""Names people read on the board: normalised, bounded, visible, and checked for look-alikes.

Every name a submitter or an admin gives (display names, providers, organisations, model and
agent names, token and dataset names, reasons) goes through :func:`clean_name`: Unicode NFKC
normalisation (so full-width or ligature forms become their plain letters), trimmed, at least
one visible character, no control or invisible formatting characters (a right-to-left override
could make a name display as another), and a length limit that the database columns hold.

A name may still *look* like another entry's while being a different string: a Cyrillic ``а``
in ``GPT-4o``, or a Unicode hyphen (U+2010) where it has ``-``. Names are compared after NFKC and
confusable folding (:func:`skeleton`); :func:`lookalike_of` finds such a name among the existing
ones, and the server accepts the submission and flags it on the board.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from coordqa.errors import ConfigError

__all__ = [
    "admin_text",
    "clean_name",
    "lookalike_characters",
    "lookalike_of",
    "scripts",
    "skeleton",
]

FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a name may not hold: controls, invisible formatting (bidi overrides,
zero-width characters), surrogates, private use, unassigned, line and paragraph separators."""

_CONFUSABLE_FROM = (
    "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅԚԜαονρικτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
    "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u02d7\u2043\ufe58\ufe63"
    "\u2018\u2019\u201a\u201b\u2032\u02bc\u201c\u201d\u201e\u2033"
    "\u2044\u2215\u29f8\u00b7\u2219\u22c5\u02d0\u0589\u2236\u00d7"
)
_CONFUSABLE_TO = (
    "aeopcyxijsdqwhlABEKMHOPCTXIJSQWaovpiktABEZHIKMNOPTYX-----------''''''\"\"\"\"///...:::x"
)
CONFUSABLES = str.maketrans(_CONFUSABLE_FROM, _CONFUSABLE_TO)
"""Characters drawn like others, mapped to the one they imitate: Cyrillic and Greek letters
to Latin ones; hyphens, dashes and the minus sign to ``-``; curly quotes and primes to ``'`` and
``"``; fraction and division slashes to ``/``; middle dots to ``.``; ratio signs to ``:``."""


def clean_name(value: str, *, what: str, max_length: int = 200) -> str:
    """``value`` NFKC-normalised and trimmed, or a ValueError saying what is wrong.

    >>> clean_name("  ＧＰＴ－４o ", what="name")
    'GPT-4o'
    """
    text = unicodedata.normalize("NFKC", value).strip()
    if not text:
        raise ValueError(f"{what} is empty or only whitespace")
    hidden = [c for c in text if unicodedata.category(c) in FORBIDDEN_CATEGORIES]
    if hidden:
        codes = ", ".join(f"U+{ord(c):04X}" for c in hidden[:5])
        raise ValueError(
            f"{what} holds control or invisible characters ({codes}); use visible text only"
        )
    if len(text) > max_length:
        raise ValueError(f"{what} is {len(text)} characters long; at most {max_length} allowed")
    return text


def admin_text(value: str, *, what: str, max_length: int = 200) -> str:
    """:func:`clean_name` for text an admin gives (token names, reasons, notes).

    Raises:
        ConfigError: the text is blank, too long or holds control characters.
    """
    try:
        return clean_name(value, what=what, max_length=max_length)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc


def scripts(name: str) -> set[str]:
    """The alphabets of the letters in ``name`` (``LATIN``, ``CYRILLIC``, ``GREEK``...).

    >>> sorted(scripts("GPT-4о"))  # the last letter is Cyrillic
    ['CYRILLIC', 'LATIN']
    """
    return {
        unicodedata.name(c, "UNKNOWN").split()[0]
        for c in name
        if unicodedata.category(c).startswith("L")
    }


def skeleton(name: str) -> str:
    """What ``name`` looks like: look-alike letters mapped to Latin, case and spaces folded.

    >>> skeleton("GPT-4о") == skeleton("gpt-4o")
    True
    """
    return "".join(unicodedata.normalize("NFKC", name).translate(CONFUSABLES).casefold().split())


def _spelling(name: str) -> str:
    """``name`` with case and spaces folded, but every character kept as itself."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def lookalike_of(name: str, existing: Iterable[str]) -> str | None:
    """An existing name that ``name`` imitates with look-alike characters, if any.

    ``name`` imitates another when it holds look-alike characters (:data:`CONFUSABLES`) and
    has the same :func:`skeleton` but another spelling: ``GPT‐4o`` (U+2010) or ``GРT-4o`` (a
    Cyrillic Er) next to ``GPT-4o``. A name of plain characters imitates nothing (``GPT-4o``
    next to an imitation of it), and ``Gpt-4o`` or ``GPT - 4o`` next to ``GPT-4o`` is a casing
    or spacing choice, not a disguise.

    >>> lookalike_of("GPT\u20104o", ["GPT-4o"]), lookalike_of("Gpt - 4o", ["GPT-4o"])
    ('GPT-4o', None)
    >>> lookalike_of("GPT-4o", ["GPT\u20104o"]) is None
    True
    """
    if not lookalike_characters(name):
        return None
    target, spelling = skeleton(name), _spelling(name)
    for other in existing:
        if skeleton(other) == target and _spelling(other) != spelling:
            return other
    return None


def lookalike_characters(name: str) -> list[str]:
    """The characters of ``name`` that imitate others, named (``U+2010 HYPHEN``).

    >>> lookalike_characters("GPT\u20104о")
    ['U+2010 HYPHEN', 'U+043E CYRILLIC SMALL LETTER O']
    """
    text = unicodedata.normalize("NFKC", name)
    return [
        f"U+{ord(c):04X} {unicodedata.name(c, '?')}"
        for c in dict.fromkeys(text)
        if c.translate(CONFUSABLES) != c
    ]
